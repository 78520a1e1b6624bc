package io.fanout.tensor.cuda;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import org.junit.platform.engine.DiscoverySelector;
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
 * gpu-trainer/target/gpu-lib/*" io.fanout.tensor.cuda.GpuTestMain} (docs/gpu.md). Arguments, when
 * given, name the test classes to run instead of all (a simple name is looked up in this package).
 * Prints the failures and a closing "N passed, N failed, N skipped" line; exits 1 when a test
 * failed.
 */
public final class GpuTestMain {
  private GpuTestMain() {}

  public static void main(String[] args) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectors(args))
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

  private static List<? extends DiscoverySelector> selectors(String[] classNames) {
    if (classNames.length == 0) {
      return List.of(selectPackage("io.fanout"));
    }
    String pkg = GpuTestMain.class.getPackageName();
    return Arrays.stream(classNames)
        .map(n -> selectClass(n.contains(".") ? n : pkg + "." + n))
        .toList();
  }
}
