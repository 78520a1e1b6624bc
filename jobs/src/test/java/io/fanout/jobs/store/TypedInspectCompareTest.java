package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect --compare} on a typed store: per featured type, the decoded rows of a store whose
 * paper type keeps int8 rows (its author type f32, its term type no features) against the f32 store
 * of the same graph, checked against the errors computed here from the rows and the int8 parameters
 * directly; a reference of another shape is refused with one line naming the type.
 */
class TypedInspectCompareTest {
  private static final int PAPERS = 300;
  private static final int AUTHORS = 40;
  private static final int[][] SIZES = {{120, 180}, {40}, {10}};
  private static final int[][][] NO_SETS = {null, null, null};

  @TempDir static Path tmp;
  static ArrayTypedGraph g;
  static float[] paperRows;
  static FeatureParams paperParams;
  static Path f32;
  static Path int8;

  @BeforeAll
  static void writeStores() {
    SplittableRandom r = new SplittableRandom(11);
    paperRows = new float[PAPERS * 3];
    for (int i = 0; i < paperRows.length; i++) {
      paperRows[i] = (float) (r.nextGaussian() * (1 + i % 3));
    }
    float[] authorRows = new float[AUTHORS * 2];
    for (int i = 0; i < authorRows.length; i++) {
      authorRows[i] = (float) r.nextDouble();
    }
    int[] src = new int[PAPERS];
    int[] dst = new int[PAPERS];
    for (int v = 0; v < PAPERS; v++) {
      src[v] = r.nextInt(AUTHORS);
      dst[v] = v;
    }
    g =
        ArrayTypedGraph.builder()
            .type("paper", PAPERS, 3, paperRows, null, null)
            .type("author", AUTHORS, 2, authorRows, null, null)
            .type("term", 10, 0, null, null, null)
            .relation("writes", "author", "paper", src, dst)
            .relation("has_term", "term", "paper", new int[] {0, 1}, new int[] {0, 1})
            .build();
    f32 = tmp.resolve("f32");
    TypedStoreFixtures.write(f32, g, SIZES, NO_SETS);
    FeatureParams[] params = TypedStoreFixtures.affine(g, StoreLayout.ENCODING_INT8);
    paperParams = params[0];
    params[1] = null; // author stays f32
    int8 = tmp.resolve("int8");
    TypedStoreFixtures.write(int8, g, SIZES, NO_SETS, params);
  }

  @Test
  void reportsEachFeaturedTypesErrorAgainstTheF32Store() {
    Result res = cli("inspect", int8.toString(), "--compare", f32.toString());
    assertThat(res.code()).as(res.err()).isZero();
    JsonNode c = res.json().get("compare");
    assertThat(c.get("store").asText()).isEqualTo(f32.toAbsolutePath().toString());
    JsonNode types = c.get("types");
    assertThat(types.size()).isEqualTo(2); // term has no features

    // the reference: each paper value quantized to the nearest of 256 levels between the
    // column's min and max, and decoded as offset + scale * q
    double max = 0;
    double sum = 0;
    long exact = 0;
    for (int v = 0; v < PAPERS; v++) {
      boolean same = true;
      for (int col = 0; col < 3; col++) {
        float x = paperRows[3 * v + col];
        float scale = paperParams.scale()[col];
        float offset = paperParams.offset()[col];
        long q =
            scale == 0 ? 0 : Math.max(0, Math.min(255, Math.round(((double) x - offset) / scale)));
        double d = Math.abs((double) (offset + scale * q) - x);
        max = Math.max(max, d);
        sum += d;
        same &= d == 0;
      }
      exact += same ? 1 : 0;
    }
    JsonNode paper = types.get("paper");
    assertThat(paper.get("feature_encoding").asText()).isEqualTo("int8");
    assertThat(paper.get("max_abs_error").asDouble()).isEqualTo(max).isPositive();
    assertThat(paper.get("mean_abs_error").asDouble()).isEqualTo(sum / (3.0 * PAPERS));
    assertThat(paper.get("exact_rows").asLong()).isEqualTo(exact);
    // within half a step of the widest column
    assertThat(max).isLessThanOrEqualTo(maxHalfStep() * (1 + 1e-5));

    JsonNode author = types.get("author");
    assertThat(author.get("feature_encoding").asText()).isEqualTo("f32");
    assertThat(author.get("max_abs_error").asDouble()).isZero();
    assertThat(author.get("mean_abs_error").asDouble()).isZero();
    assertThat(author.get("exact_rows").asLong()).isEqualTo(AUTHORS);
  }

  @Test
  void aReferenceOfAnotherShapeIsRefusedNamingTheType() {
    // the int8 store is no f32 reference for its own paper type
    Result r = cli("inspect", f32.toString(), "--compare", int8.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("type 'paper'").contains("got int8");
    assertThat(r.err().strip().lines()).hasSize(1);
  }

  private static double maxHalfStep() {
    double h = 0;
    for (float s : paperParams.scale()) {
      h = Math.max(h, s / 2.0);
    }
    return h;
  }
}
