package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.IdLookup;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.graph.PartitionerKind;
import io.fanout.store.IdRankTable;

/**
 * Whether a {@code prepare} run looks edge endpoints up in the csr tasks ({@code --id-lookup task})
 * or joins the edges with the id map in Spark ({@code sql}); {@code auto} takes the task lookup
 * wherever it applies.
 */
final class TaskIdLookup {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrepareJob.class);

  private final FanoutConf conf;
  private final EdgeSplitPlan edgeSplit;

  /**
   * @param edgeSplit the run's held-out edge split, or null when it has none
   */
  TaskIdLookup(FanoutConf conf, EdgeSplitPlan edgeSplit) {
    this.conf = conf;
    this.edgeSplit = edgeSplit;
  }

  /**
   * Why {@code --id-lookup task} cannot build this store, or null when it can.
   *
   * @param largestPartition the most vertices of one partition, 0 when not known yet
   */
  String obstacle(NormalizedTables t, long largestPartition) {
    PartitionerKind partitioner = conf.get(PrepareOptions.PARTITIONER);
    if (partitioner != PartitionerKind.HASH) {
      return "--partitioner "
          + partitioner.id()
          + " (the csr tasks find an endpoint's partition by hashing its id: hash only)";
    }
    if (t.idTypeName().equals("string")) {
      return "string vertex ids (the tables hold int or long ids)";
    }
    if (t.weighted) {
      return "weighted edges (Spark sorts them with their weights)";
    }
    if (!PrepareJob.sortsEdgesInTask(conf)) {
      return "--edge-sort sql (Spark sorts the rows by their dense ids)";
    }
    if (edgeSplit != null) {
      return "held-out val/test edges (they are written from the joined edges)";
    }
    if (largestPartition > IdRankTable.MAX_IDS) {
      return "a partition of "
          + largestPartition
          + " vertices (a table holds at most "
          + IdRankTable.MAX_IDS
          + "; raise --partitions)";
    }
    return null;
  }

  /** Fails before any work when {@code --id-lookup task} was asked for and cannot apply. */
  void requireIfAsked(NormalizedTables t, long largestPartition) {
    if (conf.get(PrepareOptions.ID_LOOKUP) == IdLookup.TASK) {
      String why = obstacle(t, largestPartition);
      if (why != null) {
        throw refused(why);
      }
    }
  }

  private static FanoutConfigException refused(String why) {
    return new FanoutConfigException(
        "--id-lookup task does not apply to "
            + why
            + "; use --id-lookup auto (task where it applies) or sql");
  }

  /**
   * Whether this run looks endpoints up in the csr tasks ({@code --id-lookup}); an explicit {@code
   * task} that cannot apply fails, {@code auto} logs why it joins.
   */
  boolean uses(NormalizedTables t, long largestPartition) {
    IdLookup mode = conf.get(PrepareOptions.ID_LOOKUP);
    if (mode == IdLookup.SQL) {
      return false;
    }
    String why = obstacle(t, largestPartition);
    if (why == null) {
      return true;
    }
    if (mode == IdLookup.TASK) {
      throw refused(why);
    }
    LOG.info("prepare: --id-lookup auto joins the edges with the id map: {}", why);
    return false;
  }
}
