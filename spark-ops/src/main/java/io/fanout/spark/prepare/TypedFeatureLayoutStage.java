package io.fanout.spark.prepare;

import io.fanout.graph.TypedNeighborhoodOrder;
import io.fanout.graph.TypedSeedGroupOrder;
import io.fanout.graph.TypedStagedGraph;
import io.fanout.store.FeatureLayoutKind;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * The feature layout step of typed {@code prepare} ({@code --feature-layout seed-groups}, {@link
 * TypedSeedGroupOrder}, or {@code neighborhood}, {@link TypedNeighborhoodOrder}): the first-use
 * keys are computed in two rounds of Spark tasks, each reading one partition's staged CSR files and
 * shuffling (global id, key) pairs reduced with {@code min} to the partition that owns the id; then
 * one task per partition lays out its rows. For {@code neighborhood}, one more round in between:
 * each partition lists, from its CSR files and keys, the group of its vertices with each of their
 * in-neighbors, shuffled to the in-neighbor's partition, whose task lays out from its keys and the
 * groups it received. The driver holds a few numbers per partition; a task, memory in proportion to
 * its partition and the pairs it lists or receives. The files do not depend on the number of tasks
 * or executors.
 */
final class TypedFeatureLayoutStage {
  private final SparkSession spark;

  TypedFeatureLayoutStage(SparkSession spark) {
    this.spark = spark;
  }

  /**
   * Lays out the feature files of the typed store staged in {@code dataDir} (shape {@code g}) in
   * layout {@code kind} ({@code seed-groups} or {@code neighborhood}).
   */
  void write(Path dataDir, TypedStagedGraph g, FeatureLayoutKind kind) {
    TypedSeedGroupOrder.start(dataDir, g, kind);
    String dir = dataDir.toAbsolutePath().toString();
    long[] starts = g.globalStarts();
    ByGlobalPartition owner = new ByGlobalPartition(starts);
    int targetParts = g.typeStarts()[g.target()].length - 1;
    List<Integer> ids = new ArrayList<>(targetParts);
    for (int p = 0; p < targetParts; p++) {
      ids.add(p);
    }
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaPairRDD<Long, Long> hopOne =
        sc.parallelize(ids, Math.max(1, targetParts))
            .flatMapToPair(
                p -> {
                  KeyPairs out = new KeyPairs();
                  TypedSeedGroupOrder.seeds(Paths.get(dir), g, p, out);
                  return out.iterator();
                })
            .reduceByKey(owner, Math::min);
    JavaPairRDD<Long, Long> hopTwo =
        JavaPairRDD.fromJavaRDD(
            hopOne.mapPartitionsWithIndex(
                (part, it) -> {
                  KeyPairs in = KeyPairs.of(it);
                  KeyPairs out = new KeyPairs();
                  TypedSeedGroupOrder.hopTwo(
                      Paths.get(dir), g, part, in.ids(), in.keys(), in.size(), out);
                  return out.iterator();
                },
                false)); // the pairs belong to other partitions: reduced below by owner
    JavaPairRDD<Long, Long> keys = hopOne.union(hopTwo).reduceByKey(owner, Math::min);
    if (kind == FeatureLayoutKind.SEED_GROUPS) {
      keys.foreachPartition(
          it -> {
            int part = TaskContext.getPartitionId();
            TypedSeedGroupOrder.layOut(Paths.get(dir), g, part, keysOf(starts, part, it));
          });
    } else {
      JavaPairRDD<Long, Long> drawnBy =
          JavaPairRDD.fromJavaRDD(
                  keys.mapPartitionsWithIndex(
                      (part, it) -> {
                        KeyPairs out = new KeyPairs();
                        TypedNeighborhoodOrder.drawnBy(
                            Paths.get(dir), g, part, keysOf(starts, part, it), out);
                        return out.iterator();
                      },
                      false))
              .partitionBy(owner);
      keys.zipPartitions(
              drawnBy,
              (mine, drawn) -> {
                int part = TaskContext.getPartitionId();
                KeyPairs in = KeyPairs.of(drawn);
                TypedNeighborhoodOrder.layOut(
                    Paths.get(dir),
                    g,
                    part,
                    keysOf(starts, part, mine),
                    in.ids(),
                    in.keys(),
                    in.size());
                return Collections.<Boolean>emptyIterator();
              })
          .count();
    }
    TypedSeedGroupOrder.finish(dataDir, g);
  }

  /** The first-use keys of global partition {@code part}'s vertices from its reduced pairs. */
  private static long[] keysOf(long[] starts, int part, Iterator<Tuple2<Long, Long>> it) {
    long first = starts[part];
    long[] keys = new long[Math.toIntExact(starts[part + 1] - first)];
    Arrays.fill(keys, TypedSeedGroupOrder.UNREACHED);
    while (it.hasNext()) {
      Tuple2<Long, Long> e = it.next();
      keys[Math.toIntExact(e._1() - first)] = e._2();
    }
    return keys;
  }

  /** Sends a global dense id to the partition of the store that holds it. */
  static final class ByGlobalPartition extends Partitioner {
    private final long[] starts;

    ByGlobalPartition(long[] starts) {
      this.starts = starts;
    }

    @Override
    public int numPartitions() {
      return starts.length - 1;
    }

    @Override
    public int getPartition(Object key) {
      return TypedStagedGraph.partitionOf(starts, (Long) key);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ByGlobalPartition b && Arrays.equals(b.starts, starts);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(starts);
    }
  }

  /** (id, key) pairs in two growing primitive arrays. */
  static final class KeyPairs implements TypedSeedGroupOrder.KeySink {
    private long[] ids = new long[64];
    private long[] keys = new long[64];
    private int size;

    static KeyPairs of(Iterator<Tuple2<Long, Long>> it) {
      KeyPairs p = new KeyPairs();
      while (it.hasNext()) {
        Tuple2<Long, Long> e = it.next();
        p.accept(e._1(), e._2());
      }
      return p;
    }

    @Override
    public void accept(long id, long key) {
      if (size == ids.length) {
        ids = Arrays.copyOf(ids, 2 * size);
        keys = Arrays.copyOf(keys, 2 * size);
      }
      ids[size] = id;
      keys[size++] = key;
    }

    long[] ids() {
      return ids;
    }

    long[] keys() {
      return keys;
    }

    int size() {
      return size;
    }

    Iterator<Tuple2<Long, Long>> iterator() {
      return new Iterator<>() {
        private int i;

        @Override
        public boolean hasNext() {
          return i < size;
        }

        @Override
        public Tuple2<Long, Long> next() {
          Tuple2<Long, Long> e = new Tuple2<>(ids[i], keys[i]);
          i++;
          return e;
        }
      };
    }
  }
}
