import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces one record with the Java client and the given compression.type, as a JVM service
 * would: CompressedProducer <brokers> <topic> <gzip|snappy|lz4|zstd> <key> <value> [name=value]...
 */
public class CompressedProducer {
  public static void main(String[] args) throws Exception {
    Properties config = new Properties();
    config.put("bootstrap.servers", args[0]);
    config.put("compression.type", args[2]);
    config.put("acks", "all");
    config.put("max.block.ms", "10000");
    try (var producer =
        new KafkaProducer<String, String>(config, new StringSerializer(), new StringSerializer())) {
      var record = new ProducerRecord<String, String>(args[1], args[3], args[4]);
      for (int i = 5; i < args.length; i++) {
        String[] header = args[i].split("=", 2);
        record.headers().add(header[0], header[1].getBytes(StandardCharsets.UTF_8));
      }
      producer.send(record).get();
    }
  }
}
