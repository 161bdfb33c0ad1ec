// `java bench/probes/BrokerRequests.java <pid>...`: how many requests of each kind the Kafka brokers
// running as these processes have handled, as one JSON object ({"Produce": 1234, ...}), read
// from their JMX metrics over the JDK's attach API (no JMX port needed).
import com.sun.tools.attach.VirtualMachine;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

public class BrokerRequests {
  public static void main(String[] pids) throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    ObjectName pattern =
        new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=*,version=*");
    for (String pid : pids) {
      VirtualMachine vm = VirtualMachine.attach(pid);
      try (JMXConnector connector =
          JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()))) {
        MBeanServerConnection server = connector.getMBeanServerConnection();
        for (ObjectName name : server.queryNames(pattern, null)) {
          long count = ((Number) server.getAttribute(name, "Count")).longValue();
          counts.merge(name.getKeyProperty("request"), count, Long::sum);
        }
      } finally {
        vm.detach();
      }
    }
    StringBuilder json = new StringBuilder("{");
    counts.forEach(
        (request, count) -> {
          if (json.length() > 1) json.append(',');
          json.append('"').append(request).append("\":").append(count);
        });
    System.out.println(json.append('}'));
  }
}
