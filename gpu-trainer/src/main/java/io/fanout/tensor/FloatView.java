package io.fanout.tensor;

import java.util.Objects;

/**
 * A float tensor from an element offset on: the (tensor, element offset) pair by which an operation
 * addresses a sub-range of a {@link Tensor}. An operand an operation may go without (a gradient it
 * need not compute) is a null view, never a view of a null tensor.
 */
public record FloatView(FloatTensor tensor, int offset) {
  public FloatView {
    Objects.requireNonNull(tensor, "tensor");
  }

  /** {@code tensor} from its first element. */
  public static FloatView of(FloatTensor tensor) {
    return new FloatView(tensor, 0);
  }

  /** {@code tensor} from element {@code offset}. */
  public static FloatView at(FloatTensor tensor, int offset) {
    return new FloatView(tensor, offset);
  }
}
