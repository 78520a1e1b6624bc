package io.fanout.tensor.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PTX modules shipped in resources ({@code io/fanout/tensor/cuda/NAME.ptx}, generated from
 * {@code src/main/cuda/NAME.cu} by {@code build-ptx.sh}) and the kernels each must define.
 */
public final class PtxModules {
  /** Module name to the kernel entry points the backend launches from it. */
  public static final Map<String, List<String>> KERNELS =
      Map.ofEntries(
          Map.entry("sgemm", List.of("sgemm", "sgemm_reduce")),
          Map.entry("bias", List.of("add_bias", "bias_grad", "bias_grad_partial", "bias_grad_sum")),
          Map.entry("activation", List.of("activate", "activate_backward")),
          Map.entry("dropout", List.of("dropout", "dropout_csr")),
          Map.entry("aggregate", List.of("aggregate", "aggregate_backward")),
          Map.entry("spmm", List.of("spmm", "spmm_transposed")),
          Map.entry("softmax", List.of("softmax_xent", "sum_fixed", "count_correct")),
          Map.entry("adam", List.of("adam")),
          Map.entry("gather", List.of("gather_rows", "gather_parts", "gather_parts_v4")),
          Map.entry(
              "decode",
              List.of(
                  "gather_parts_f16", "gather_parts_int8", "gather_parts_int4", "gather_parts_pq")),
          Map.entry("elementwise", List.of("fill", "axpy", "scale", "copy_2d")),
          Map.entry("rownorm", List.of("normalize_rows")),
          Map.entry(
              "attention",
              List.of(
                  "head_scores",
                  "head_scores_backward_z",
                  "head_scores_backward_a",
                  "attention_softmax",
                  "attention_aggregate",
                  "attention_edge_grad",
                  "attention_src_grad",
                  "attention_src_score_grad",
                  "attention_rel_partial",
                  "attention_rel_sum",
                  "attention_residual_weights")),
          Map.entry("l2norm", List.of("l2_normalize_rows", "l2_normalize_rows_backward")),
          Map.entry("multilabel", List.of("sigmoid_xent", "count_exact")));

  private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+(\\w+)\\s*\\(([^)]*)\\)");
  private static final Pattern PARAM = Pattern.compile("\\.param\\s+\\.(\\w+)");

  private PtxModules() {}

  /**
   * The parameter signature of every kernel in module {@code name}, one letter per parameter: i for
   * {@code .u32}/{@code .s32}, f for {@code .f32}, q for {@code .u64}/{@code .s64} (64-bit integers
   * and pointers).
   */
  public static Map<String, String> signatures(String name) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    Matcher e = ENTRY.matcher(ptx(name));
    while (e.find()) {
      StringBuilder sig = new StringBuilder();
      Matcher p = PARAM.matcher(e.group(2));
      while (p.find()) {
        switch (p.group(1)) {
          case "u32", "s32", "b32" -> sig.append('i');
          case "f32" -> sig.append('f');
          case "u64", "s64", "b64" -> sig.append('q');
          default ->
              throw new IllegalStateException(
                  "kernel " + e.group(1) + " has a ." + p.group(1) + " parameter");
        }
      }
      out.put(e.group(1), sig.toString());
    }
    return out;
  }

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
