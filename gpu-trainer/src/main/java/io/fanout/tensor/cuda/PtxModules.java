package io.fanout.tensor.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The PTX modules shipped in resources ({@code io/fanout/tensor/cuda/NAME.ptx}, generated from
 * {@code src/main/cuda/NAME.cu} by {@code build-ptx.sh}) and the kernels each must define.
 */
public final class PtxModules {
  /** Module name to the kernel entry points the backend launches from it. */
  public static final Map<String, List<String>> KERNELS =
      Map.of(
          "sgemm", List.of("sgemm"),
          "bias", List.of("add_bias", "bias_grad"),
          "activation", List.of("activate", "activate_backward"),
          "dropout", List.of("dropout", "dropout_csr"),
          "aggregate", List.of("aggregate", "aggregate_backward"),
          "spmm", List.of("spmm", "spmm_transposed"),
          "softmax", List.of("softmax_xent", "sum_fixed", "count_correct"),
          "adam", List.of("adam"),
          "gather", List.of("gather_rows", "gather_parts"),
          "elementwise", List.of("fill", "axpy", "scale", "copy_2d"));

  private PtxModules() {}

  /** The PTX text of module {@code name}. */
  public static String ptx(String name) {
    String path = name + ".ptx";
    try (InputStream in = PtxModules.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(
            "PTX resource io/fanout/tensor/cuda/"
                + path
                + " is missing; run gpu-trainer/src/main/cuda/build-ptx.sh");
      }
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("reading PTX resource " + path + " failed", e);
    }
  }
}
