import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
public class Run {
  public static void main(String[] a) {
    var req = LauncherDiscoveryRequestBuilder.request().selectors(selectClass("io.fanout.train.typed.TypedAccuracyProbe")).build();
    var l = new SummaryGeneratingListener();
    LauncherFactory.create().execute(req, l);
    l.getSummary().printTo(new java.io.PrintWriter(System.out));
    l.getSummary().printFailuresTo(new java.io.PrintWriter(System.out), 30);
    System.exit(l.getSummary().getTotalFailureCount() == 0 && l.getSummary().getTestsSucceededCount() == 1 ? 0 : 1);
  }
}
