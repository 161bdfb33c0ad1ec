package com.example.plants;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.kafka.requestreply.KafkaReplyTimeoutException;
import org.springframework.kafka.requestreply.ReplyingKafkaTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

@Component
public class PlantStoreClient {

  private final ReplyingKafkaTemplate<String, String, String> template;
  private final JsonMapper json;
  private final String commandTopic;

  public PlantStoreClient(
      ReplyingKafkaTemplate<String, String, String> template,
      JsonMapper json,
      PlantStoreProperties properties) {
    this.template = template;
    this.json = json;
    this.commandTopic = properties.commandTopic();
  }

  /**
   * Waits until the reply consumer owns its partitions: its group starts at the end of the
   * topic, so a reply written before that would never be read. Call once, before the first send.
   */
  public void waitUntilReady(Duration timeout) throws InterruptedException {
    if (!template.waitForAssignment(timeout)) {
      throw new IllegalStateException("The reply consumer was not assigned within " + timeout);
    }
  }

  /**
   * Sends the command keyed by the id and waits for the reply. ReplyingKafkaTemplate adds
   * kafka_correlationId (16 random bytes, echoed by the writer) and kafka_replyTopic.
   *
   * @throws KafkaReplyTimeoutException when no reply came in time: the outcome is unknown, and
   *     sending the same command again is safe (the writer answers 200 again).
   */
  public Reply createPlant(NewPlant plant) throws InterruptedException {
    ProducerRecord<String, String> command =
        new ProducerRecord<>(commandTopic, Long.toString(plant.id()), json.writeValueAsString(plant));
    command.headers().add("content-type", "application/json".getBytes(StandardCharsets.UTF_8));
    try {
      ConsumerRecord<String, String> reply = template.sendAndReceive(command).get();
      return json.readValue(reply.value(), Reply.class);
    } catch (ExecutionException failed) {
      if (failed.getCause() instanceof RuntimeException cause) throw cause;
      throw new IllegalStateException(failed.getCause());
    }
  }
}
