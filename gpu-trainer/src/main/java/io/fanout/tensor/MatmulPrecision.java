package io.fanout.tensor;

import java.util.Locale;

/**
 * The arithmetic of dense products ({@code --precision}): {@link #FP32} everywhere by default;
 * {@link #TF32} and {@link #BF16} let cuBLAS round the operands for the tensor cores (accumulating
 * in fp32), on the CUDA backend only.
 */
public enum MatmulPrecision {
  FP32("fp32"),
  TF32("tf32"),
  BF16("bf16");

  private final String id;

  MatmulPrecision(String id) {
    this.id = id;
  }

  /** The spelling of this value in options, checkpoints and messages. */
  public String id() {
    return id;
  }

  /**
   * The value spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  public static MatmulPrecision parse(String raw) {
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (MatmulPrecision e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
