package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.TypedShardSet;
import io.fanout.spark.Fanout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sample} on a typed store written by {@code prepare} (the default typed store opener): the
 * seed type must be named when two types are labelled; any thread count gives the same typed parts;
 * every sampled edge of every block exists in its relation of the store, every seed is of the train
 * split, and each epoch covers every train seed once.
 */
class TypedStoreSampleTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedStoreSampleTest");
    Random r = new Random(3);
    StructType paper =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType);
    StructType author =
        new StructType()
            .add("id", DataTypes.StringType)
            .add("labels", DataTypes.createArrayType(DataTypes.IntegerType));
    StructType pp = new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
    StructType ap =
        new StructType().add("src", DataTypes.StringType).add("dst", DataTypes.LongType);
    List<Row> papers = new ArrayList<>();
    for (long i = 0; i < 120; i++) {
      papers.add(
          RowFactory.create(
              1000 + i,
              new Float[] {r.nextFloat(), r.nextFloat()},
              r.nextInt(3),
              i % 3 == 0 ? "train" : i % 3 == 1 ? "val" : "test"));
    }
    List<Row> authors = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      authors.add(RowFactory.create("a" + i, new Integer[] {i % 2}));
    }
    List<Row> cites = new ArrayList<>();
    for (int e = 0; e < 600; e++) {
      cites.add(RowFactory.create(1000L + r.nextInt(120), 1000L + r.nextInt(120)));
    }
    List<Row> writes = new ArrayList<>();
    for (int e = 0; e < 300; e++) {
      writes.add(RowFactory.create("a" + r.nextInt(50), 1000L + r.nextInt(120)));
    }
    store = tmp.resolve("typed.store");
    Fanout.get(spark)
        .prepare()
        .vertices("paper", df(papers, paper))
        .vertices("author", df(authors, author))
        .edges("cites", "paper", "paper", df(cites, pp))
        .edges("writes", "author", "paper", df(writes, ap))
        .option("labels-column", "labels")
        .option("add-reverse", "true")
        .option("dedupe", "true")
        .option("partitions", "2")
        .output(store.toString())
        .execute();
  }

  private static Dataset<Row> df(List<Row> rows, StructType schema) {
    return spark.createDataFrame(rows, schema);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static void sample(Path out, String... options) {
    var action = Fanout.get(spark).sample(store.toString()).output(out.toString());
    for (int i = 0; i < options.length; i += 2) {
      action.option(options[i], options[i + 1]);
    }
    action.execute();
  }

  @Test
  void samplesAPreparedTypedStore() throws Exception {
    Path out = tmp.resolve("ambiguous");
    assertThatThrownBy(() -> sample(out))
        .hasMessageContaining("several labelled vertex types (paper, author)")
        .hasMessageContaining("--seed-type");

    String[] opts = {
      "seed-type", "paper",
      "fanouts", "cites=3,2;*=2,-1",
      "batch-size", "8",
      "epochs", "2",
      "batches-per-shard", "2",
      "seed", "11"
    };
    Path a = tmp.resolve("t1");
    Path b = tmp.resolve("t2");
    sample(a, concat(opts, "threads", "1"));
    sample(b, concat(opts, "threads", "2"));
    assertThat(SameShards.assertByteIdentical(a, b)).isNotEmpty();

    TypedShardSet set = TypedShardSet.open(a);
    assertThat(set.manifest().typed.relations)
        .extracting(rel -> rel.name)
        .contains("cites", "writes");
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      TypedSchema s = g.schema();
      assertThat(set.shape().numRelations()).isEqualTo(s.numRelations());
      int paper = s.typeIndex("paper");
      Set<Integer> train = new HashSet<>();
      for (int v = 0; v < g.vertices(paper).numVertices(); v++) {
        if (g.vertices(paper).split(v) == io.fanout.store.StoreLayout.SPLIT_TRAIN) {
          train.add(v);
        }
      }
      assertThat(train).hasSize(40);
      for (int e = 0; e < 2; e++) {
        Set<Integer> seen = new HashSet<>();
        for (Iterator<TypedMiniBatch> it = set.batches(e, true); it.hasNext(); ) {
          TypedMiniBatch mb = it.next();
          assertThat(mb.seedType()).isEqualTo(paper);
          for (int i = 0; i < mb.numSeeds(); i++) {
            int v = mb.nodes(paper)[i];
            assertThat(train).contains(v);
            assertThat(seen.add(v)).isTrue();
            assertThat(mb.labels()[i]).isEqualTo(g.vertices(paper).label(v));
          }
          for (int h = 1; h <= mb.layers(); h++) {
            for (int rel = 0; rel < s.numRelations(); rel++) {
              checkEdges(mb, h, rel, s.relation(rel), g.inNeighbors(rel));
            }
          }
        }
        assertThat(seen).isEqualTo(train);
      }
    }
  }

  private static void checkEdges(
      TypedMiniBatch mb, int h, int r, TypedSchema.Relation rel, CsrGraph csr) {
    int[] ptr = mb.indptr(h, r);
    int[] ix = mb.indices(h, r);
    for (int i = 0; i + 1 < ptr.length; i++) {
      int v = mb.nodes(rel.dstType())[i];
      for (int e = ptr[i]; e < ptr[i + 1]; e++) {
        int u = mb.nodes(rel.srcType())[ix[e]];
        boolean found = false;
        for (long p = csr.rowStart(v); p < csr.rowEnd(v) && !found; p++) {
          found = csr.neighbor(p) == u;
        }
        assertThat(found).as("%s edge %d -> %d", rel.name(), u, v).isTrue();
      }
    }
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
