package com.example.plants;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

@ConfigurationProperties("plant-store")
public record PlantStoreProperties(String commandTopic, String replyTopic, Duration replyTimeout) {}
