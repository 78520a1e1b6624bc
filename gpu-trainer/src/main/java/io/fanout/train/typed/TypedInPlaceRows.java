package io.fanout.train.typed;

import io.fanout.conf.FanoutConfigException;
import io.fanout.features.TypedStoreFeatureRows;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.shard.TypedShardSet;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.train.FeatureAccessChoice;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.NormalizedFeatureRows;
import java.io.PrintStream;

/**
 * {@code train --feature-access} on a typed store: the rows of every type the model reads features
 * of, read by the backend in place ({@code zero-copy}: from the type's mapped feature files; {@code
 * device}: copied once, still encoded, into the backend's memory), each normalized there by {@code
 * --feature-norm}; learned-embedding types are unchanged. {@code auto} resolves as on one-type
 * stores ({@link FeatureAccessChoice}: {@code gather} on the CPU backends). Close it after the last
 * forward and before the backend.
 */
final class TypedInPlaceRows implements AutoCloseable {
  private final FeatureRows[] rows;

  private TypedInPlaceRows(FeatureRows[] rows) {
    this.rows = rows;
  }

  /** Per type, the rows the backend reads in place, or null for a type that does not. */
  FeatureRows[] rows() {
    return rows;
  }

  /**
   * Refuses, with one line naming the option, what an explicit {@code zero-copy} or {@code device}
   * cannot read: a graph that is not a store, shards that inline feature rows ({@code option} names
   * them: {@code --shards}, {@code --val-shards}), a feature cache.
   */
  static void check(
      FeatureAccessMode access, TypedGraph g, TypedShardSet set, String option, boolean cache) {
    if (!access.readsInPlace()) {
      return;
    }
    String why = refusal(g, set, option, cache);
    if (why != null) {
      throw new FanoutConfigException("train --feature-access " + access.id() + ": " + why);
    }
  }

  /** Why this run's rows cannot be read in place, or null when they can. */
  private static String refusal(TypedGraph g, TypedShardSet set, String option, boolean cache) {
    if (!(g instanceof TypedGraphStore)) {
      return "the graph is not a typed store whose feature files can be mapped; use gather";
    }
    if (set != null && set.featureDims() != null) {
      return option
          + " "
          + set.dir()
          + " inline feature rows (sample --features "
          + set.featureEncoding().id()
          + "), and rows read in place take node-id-only shards; use --feature-access gather";
    }
    if (cache) {
      return "a typed store's --feature-cache gathers rows on the host and is not built for rows"
          + " read in place; drop --feature-cache or use --feature-access gather";
    }
    return null;
  }

  /**
   * The rows of the run's resolved access, or null when it gathers on the host; auto's choice on a
   * device and its reason go to {@code progress}. {@code val} ({@code --val-shards}, or null) must
   * hold node ids only too, or auto gathers.
   */
  static TypedInPlaceRows open(
      FeatureAccessMode asked,
      TypedGraph g,
      TypedShardSet set,
      TypedShardSet val,
      boolean cache,
      TypedModelConfig cfg,
      Backend be,
      PrintStream progress) {
    check(asked, g, set, "--shards", cache);
    boolean featured = false;
    for (int t = 0; t < cfg.numTypes(); t++) {
      featured |= !cfg.type(t).embedded();
    }
    String why = featured ? refusal(g, set, "--shards", cache) : "no type reads feature rows";
    if (why == null && val != null) {
      why = refusal(g, val, "--val-shards", false);
    }
    FeatureAccessChoice.Choice c =
        FeatureAccessChoice.resolve(
            asked,
            be,
            g instanceof TypedGraphStore s ? TypedStoreFeatureRows.encodedBytes(s) : 0,
            why,
            false);
    if (asked == FeatureAccessMode.AUTO && progress != null && be.freeDeviceBytes() >= 0) {
      progress.println("train: --feature-access auto: " + c.mode().id() + " (" + c.why() + ")");
    }
    if (!c.mode().readsInPlace() || !featured) {
      return null;
    }
    TypedGraphStore store = (TypedGraphStore) g;
    FeatureRows[] rows = new FeatureRows[cfg.numTypes()];
    TypedInPlaceRows open = new TypedInPlaceRows(rows);
    try {
      for (int t = 0; t < rows.length; t++) {
        if (!cfg.type(t).embedded()) {
          rows[t] =
              NormalizedFeatureRows.of(
                  TypedStoreFeatureRows.open(be, store, t, c.mode() == FeatureAccessMode.DEVICE),
                  be,
                  cfg.featureNorm());
        }
      }
    } catch (RuntimeException e) {
      open.close();
      throw e;
    }
    return open;
  }

  @Override
  public void close() {
    for (FeatureRows r : rows) {
      if (r != null) {
        r.close();
      }
    }
  }
}
