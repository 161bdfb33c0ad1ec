package com.example.plants;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.kafka.requestreply.KafkaReplyTimeoutException;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/** {@code <int64 id> <name> [tag]}: prints the reply; exits 0 on 200, 1 on 400, 2 otherwise. */
@Component
class CreatePlantCommand implements ApplicationRunner, ExitCodeGenerator {

  private final PlantStoreClient client;
  private final JsonMapper json;
  private int exitCode = 2;

  CreatePlantCommand(PlantStoreClient client, JsonMapper json) {
    this.client = client;
    this.json = json;
  }

  @Override
  public void run(ApplicationArguments arguments) throws InterruptedException {
    NewPlant plant;
    try {
      plant = plantFrom(arguments.getNonOptionArgs());
    } catch (IllegalArgumentException notAPlant) {
      System.err.println("Usage: java -jar target/plant-store-spring-client.jar <int64 id> <name> [tag]");
      return;
    }
    client.waitUntilReady(Duration.ofSeconds(30));
    try {
      Reply reply = client.createPlant(plant);
      System.out.println(json.writeValueAsString(reply));
      exitCode = reply.status() == 200 ? 0 : 1;
    } catch (KafkaReplyTimeoutException timedOut) {
      System.err.println(timedOut.getMessage());
    }
  }

  /** Long.parseLong refuses what is not an int64, as the writer would (4000). */
  private static NewPlant plantFrom(List<String> values) {
    if (values.size() < 2 || values.size() > 3) throw new IllegalArgumentException();
    String tag = values.size() == 3 ? values.get(2) : null;
    return new NewPlant(Long.parseLong(values.get(0)), values.get(1), tag);
  }

  @Override
  public int getExitCode() {
    return exitCode;
  }
}
