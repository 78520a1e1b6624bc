package io.fanout.train.typed;

import io.fanout.nn.Adam;
import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.typed.TypedModel;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.train.GradientExchange;
import io.fanout.train.GradientReducer;
import io.fanout.train.SparseRowReduction;

/**
 * What both typed trainers do after a step's backward, on one replica or several: the dense
 * gradients' mean over the replicas ({@link GradientExchange}, as the one-type trainer), Adam on
 * the dense parameters, then one sparse Adam step of every learned embedding table over the rows of
 * the batch; with several replicas over the union of their rows with the mean of their gradients
 * ({@link SparseRowReduction}), so every replica's tables stay the same. With {@link
 * GradientReducer#LOCAL} nothing is exchanged and the update is the single-process one, bit for
 * bit.
 */
final class TypedStepUpdate implements AutoCloseable {
  private final TypedModel model;
  private final Adam adam;
  private final GradientExchange dense;

  TypedStepUpdate(TypedModel model, Adam adam, GradientReducer reducer) {
    this.model = model;
    this.adam = adam;
    this.dense = new GradientExchange(model.backend(), reducer);
  }

  GradientReducer reducer() {
    return dense.reducer();
  }

  /** Updates the model after the backward of batch {@code b}, at learning rate {@code lr}. */
  void apply(TypedMiniBatch b, float lr) {
    dense.meanOf(model.gradTensor(), model.numParams());
    adam.update(model.paramTensor(), model.gradTensor(), lr);
    GradientReducer reducer = dense.reducer();
    if (reducer.worldSize() == 1) {
      model.updateEmbeddings(lr);
      return;
    }
    for (int t = 0; t < model.config().numTypes(); t++) {
      EmbeddingTable table = model.embeddings(t);
      if (table != null) {
        int[] ids = model.inputNodes(t); // the batch's, or its pruned bottom hop's
        SparseRowReduction.update(reducer, table, ids, ids.length, model.embeddingGradient(t), lr);
      }
    }
  }

  @Override
  public void close() {
    dense.close();
  }
}
