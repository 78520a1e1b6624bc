package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Without a GPU no kernel launch runs here, so this checks every launch site in the backend's
 * sources against the PTX: the argument chain built with {@link KernelArgs} after a kernel's name
 * must match the kernel's parameters in count, order and width. (At run time {@code
 * Kernels.checkArgs} does the same check before each launch.)
 */
class KernelLaunchSignaturesTest {
  private static final Path SOURCES = Path.of("src/main/java/io/fanout/tensor/cuda");
  private static final Pattern SITE =
      Pattern.compile("\"(\\w+)\"[^\"]*?new KernelArgs\\(\\)([^;]*);");

  /** A call in the chain: preceded by the previous call's ")" or by a line break. */
  private static final Pattern ARG = Pattern.compile("(?<=[)\\s])\\.([ilfp])\\(");

  @Test
  void everyLaunchMatchesItsKernelsParameters() throws IOException {
    Map<String, String> ptx = new HashMap<>();
    for (String module : PtxModules.KERNELS.keySet()) {
      ptx.putAll(PtxModules.signatures(module));
    }
    Map<String, String> launched = new HashMap<>();
    try (Stream<Path> files = Files.list(SOURCES)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Matcher m = SITE.matcher(Files.readString(f));
        while (m.find()) {
          String sig = signature(m.group(2));
          assertThat(ptx).as("kernel launched in %s", f.getFileName()).containsKey(m.group(1));
          assertThat(sig)
              .as("arguments of %s in %s", m.group(1), f.getFileName())
              .isEqualTo(ptx.get(m.group(1)));
          launched.put(m.group(1), sig);
        }
      }
    }
    assertThat(launched.keySet())
        .as("launch sites found")
        .contains(
            "sgemm",
            "aggregate_backward",
            "softmax_xent",
            "gather_parts",
            "adam",
            "attention_edge_grad",
            "sigmoid_xent",
            "l2_normalize_rows_backward");
  }

  @Test
  void signaturesAreReadFromThePtx() {
    assertThat(PtxModules.signatures("adam")).containsEntry("adam", "qqqqqffffff");
    assertThat(PtxModules.signatures("elementwise")).containsEntry("copy_2d", "iiqiqi");
  }

  @Test
  void argsRecordTheirSignature() {
    assertThat(new KernelArgs().i(1).l(2).f(3f).p(null).signature()).isEqualTo("iqfq");
  }

  private static String signature(String chain) {
    StringBuilder s = new StringBuilder();
    Matcher a = ARG.matcher(")" + chain);
    while (a.find()) {
      char c = a.group(1).charAt(0);
      s.append(c == 'l' || c == 'p' ? 'q' : c);
    }
    return s.toString();
  }
}
