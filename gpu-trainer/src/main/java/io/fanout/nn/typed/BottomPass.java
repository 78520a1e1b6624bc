package io.fanout.nn.typed;

import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * The tensors of one pass of a typed model's input layer and layer 0 over a one-hop batch apart
 * from the whole batch's ({@link TypedModel#bottomLayer} and a step on a {@link ReusedBottom}): the
 * block's structure, its input rows, the input level, its dropout and layer 0's output. What the
 * backward of that pass reads stays here until the next pass.
 */
final class BottomPass implements AutoCloseable {
  private final Backend be;
  final TypedBatchTensors tensors;
  FloatTensor features;
  int[] featOff;
  FloatTensor input;
  FloatTensor dropped;
  IntTensor keep;
  boolean droppedCopy;
  long dropKey;
  FloatTensor out;

  BottomPass(Backend be) {
    this.be = be;
    this.tensors = new TypedBatchTensors(be);
  }

  /** Layer 0's input as the last pass read it: after dropout when it had dropout. */
  FloatTensor layerInput() {
    return droppedCopy ? dropped : input;
  }

  @Override
  public void close() {
    tensors.close();
    TensorBufs.free(be, features);
    TensorBufs.free(be, input);
    TensorBufs.free(be, dropped);
    TensorBufs.free(be, keep);
    TensorBufs.free(be, out);
    features = input = dropped = out = null;
    keep = null;
  }
}
