package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.PerType;
import io.fanout.conf.Task;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.StoreFeatureEncoding;
import java.util.List;

/**
 * The {@code prepare} options a typed graph refuses, each with one line naming the option: edge
 * splits (fractions or a column) without {@code --link-relation}, the one-table input options, and
 * per-type encodings that name unknown or featureless types.
 */
final class TypedOptionChecks {
  private TypedOptionChecks() {}

  static void refuseUnbuilt(FanoutConf conf) {
    boolean link = !conf.get(PrepareOptions.LINK_RELATION).isBlank();
    if (!link && conf.get(PrepareOptions.TASK) == Task.LINK) {
      throw new FanoutConfigException(
          "prepare --task link on a typed graph needs --link-relation NAME, the relation whose"
              + " edges are split into train, val and test");
    }
    if (!link && !conf.get(PrepareOptions.EDGE_SPLIT).isEmpty()) {
      throw new FanoutConfigException(
          "prepare --edge-split on a typed graph needs --link-relation NAME, the relation whose"
              + " edges are split");
    }
    if (!link && !conf.get(PrepareOptions.EDGE_SPLIT_COLUMN).isEmpty()) {
      throw new FanoutConfigException(
          "prepare --edge-split-column on a typed graph needs --link-relation NAME, the relation"
              + " whose edge table has the column");
    }
    if (!conf.get(PrepareOptions.VERTICES).isEmpty() || !conf.get(PrepareOptions.EDGES).isEmpty()) {
      throw new FanoutConfigException(
          "--vertices and --edges name the tables of a one-table graph; a typed graph names its"
              + " tables in --graph-spec (or vertices(type, df) and edges(...)): give one or the"
              + " other");
    }
  }

  /**
   * The feature encoding of each type ({@code --feature-encoding f16} or {@code
   * paper=f16,author=f32}), refusing names that are not types of the graph.
   */
  static PerType<StoreFeatureEncoding> encodings(FanoutConf conf, List<String> types) {
    PerType<StoreFeatureEncoding> e = conf.get(PrepareOptions.FEATURE_ENCODING);
    for (String t : e.byType().keySet()) {
      if (!types.contains(t)) {
        throw new FanoutConfigException(
            "option 'feature-encoding' of prepare names type '"
                + t
                + "', which the graph does not have; expected one of "
                + types);
      }
    }
    return e;
  }
}
