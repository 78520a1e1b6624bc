package io.fanout.bench.sample;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench-sample --weighted} on a typed store times the typed sampler drawing the store's
 * weighted relation by weight next to the uniform one, and reports its edges per second; a typed
 * store without weights is refused with one line. The stores are written without Spark ({@link
 * TypedStoreFixtures}).
 */
class BenchSampleTypedWeightedTest {
  @TempDir static Path tmp;

  /** Users (labelled) and items; bought (user to item) and its reverse, weighted or not. */
  static Path store(String name, boolean weighted) {
    Random r = new Random(3);
    int users = 200;
    int items = 100;
    int edges = 1500;
    int[] labels = new int[users];
    byte[] splits = new byte[users];
    for (int u = 0; u < users; u++) {
      labels[u] = u % 3;
      splits[u] = u % 2 == 0 ? StoreLayout.SPLIT_TRAIN : StoreLayout.SPLIT_VAL;
    }
    int[] src = new int[edges];
    int[] dst = new int[edges];
    float[] w = new float[edges];
    for (int k = 0; k < edges; k++) {
      src[k] = r.nextInt(users);
      dst[k] = r.nextInt(items);
      w[k] = k % 8 == 0 ? 0f : r.nextFloat();
    }
    TypedGraph g =
        ArrayTypedGraph.builder()
            .type("user", users, 0, null, labels, splits)
            .type("item", items, 0, null, null, null)
            .relation("bought", "user", "item", src, dst, weighted ? w : null)
            .relation("rev_bought", "item", "user", dst, src, weighted ? w : null)
            .build();
    Path out = tmp.resolve(name);
    TypedStoreFixtures.write(out, g, new int[][] {{120, 80}, {100}}, new int[2][][]);
    return out;
  }

  static Result bench(Path store) {
    return cli(
        "bench-sample",
        "--graph",
        store.toString(),
        "--weighted",
        "true",
        "--fanouts",
        "5,3",
        "--batch-size",
        "32",
        "--batches",
        "4",
        "--repeat",
        "1",
        "--shard-batches",
        "2",
        "--random-read-mib",
        "16");
  }

  @Tag("slow")
  @Test
  void timesTheWeightedTypedSamplerAndReportsItsEdgesPerSecond() {
    Result r = bench(store("weighted", true));
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode out = r.json();
    assertThat(out.get("weighted").asBoolean()).isTrue();
    assertThat(out.get("sampling")).hasSize(2);
    for (JsonNode row : out.get("sampling")) {
      // every sampled user draws up to 5 items by weight, each item up to 3 users
      assertThat(row.get("typed_weighted_sampled_edges").asLong()).isPositive();
      assertThat(row.get("typed_weighted_sampled_edges_per_s").asDouble()).isPositive();
      assertThat(row.get("typed_weighted_ratio_to_uniform").asDouble()).isPositive();
      assertThat(row.get("random_reads_per_s").asDouble()).isPositive();
      assertThat(row.has("weighted_sampled_edges")).isFalse(); // the one-type merge is unweighted
    }
  }

  @Test
  void aTypedStoreWithoutWeightsIsRefused() {
    Result r = bench(store("unweighted", false));
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("--weighted: the typed store")
        .contains("has no weighted relation");
  }

  @Test
  void aRandomReadTableOfOtherThanAPowerOfTwoMibIsRefused() {
    Result r = cli("bench-sample", "--random-read-mib", "3");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("option 'random-read-mib': expected a power of two from 1 to 2048, got 3");
  }
}
