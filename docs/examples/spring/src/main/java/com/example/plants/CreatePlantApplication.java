package com.example.plants;

import java.util.UUID;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.requestreply.ReplyingKafkaTemplate;

/** Creates one plant through the writer, prints the reply and exits (0 on 200, 1 on 400). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class CreatePlantApplication {

  public static void main(String[] args) {
    System.exit(SpringApplication.exit(SpringApplication.run(CreatePlantApplication.class, args)));
  }

  /** Created at start-up by Spring's KafkaAdmin when missing; in production, provision it. */
  @Bean
  NewTopic replyTopic(PlantStoreProperties properties) {
    return TopicBuilder.name(properties.replyTopic()).build();
  }

  @Bean
  ConcurrentMessageListenerContainer<String, String> replyContainer(
      ConcurrentKafkaListenerContainerFactory<String, String> factory,
      PlantStoreProperties properties) {
    ConcurrentMessageListenerContainer<String, String> container =
        factory.createContainer(properties.replyTopic());
    // A group of this instance's own: every instance reads every reply on the topic and keeps
    // those it waits for (a shared reply topic), so instances never rebalance each other.
    container.getContainerProperties().setGroupId("plant-store-client-" + UUID.randomUUID());
    container.setAutoStartup(false); // the template starts it
    return container;
  }

  @Bean
  ReplyingKafkaTemplate<String, String, String> replyingTemplate(
      ProducerFactory<String, String> producerFactory,
      ConcurrentMessageListenerContainer<String, String> replyContainer,
      PlantStoreProperties properties) {
    ReplyingKafkaTemplate<String, String, String> template =
        new ReplyingKafkaTemplate<>(producerFactory, replyContainer);
    // Replies for other instances are expected on a shared topic: logged at debug, not as errors.
    template.setSharedReplyTopic(true);
    template.setDefaultReplyTimeout(properties.replyTimeout());
    return template;
  }
}
