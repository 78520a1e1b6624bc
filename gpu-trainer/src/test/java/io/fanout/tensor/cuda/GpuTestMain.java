package io.fanout.tensor.cuda;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs the {@code @Tag("gpu")} tests without Maven, for a GPU machine that has a JDK but no
 * network: {@code java -cp "gpu-trainer/target/classes:gpu-trainer/target/test-classes:
 * gpu-trainer/target/gpu-lib/*" io.fanout.tensor.cuda.GpuTestMain} (docs/gpu.md). Prints the
 * failures and a closing "N passed, N failed, N skipped" line; exits 1 when a test failed.
 */
public final class GpuTestMain {
  private GpuTestMain() {}

  public static void main(String[] args) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectPackage("io.fanout"))
            .filters(TagFilter.includeTags("gpu"))
            .build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    launcher.execute(request, listener);
    TestExecutionSummary s = listener.getSummary();
    PrintWriter out = new PrintWriter(System.out, true);
    s.printFailuresTo(out, 20);
    long skipped = s.getTestsSkippedCount() + s.getTestsAbortedCount();
    out.println(
        s.getTestsSucceededCount()
            + " passed, "
            + s.getTestsFailedCount()
            + " failed, "
            + skipped
            + " skipped");
    System.exit(s.getTestsFailedCount() == 0 ? 0 : 1);
  }
}
