package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fanout.nn.DotDecoder;
import io.fanout.sample.LinkPairs;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Scaled-cosine link scoring: its loss gradient, its bounds and the plain-dot fallback. */
class LinkStepTest {
  private static final int[] SRC = {0, 0, 1, 3, 2, 4};
  private static final int[] DST = {1, 2, 4, 3, 0, 1};
  private static final int[] Y = {1, 0, 1, 0, 1, 0};

  private static float[] embeddings(int rows, int dim, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] h = new float[rows * dim];
    for (int i = 0; i < h.length; i++) {
      h[i] = (float) (r.nextDouble() * 6 - 3);
    }
    return h;
  }

  /** The summed BCE of {@code 5 cos(h_u, h_v)} computed directly from its definition. */
  private static double reference(float[] h, int dim) {
    double sum = 0;
    for (int i = 0; i < SRC.length; i++) {
      double uv = 0;
      double uu = 0;
      double vv = 0;
      for (int j = 0; j < dim; j++) {
        double a = h[SRC[i] * dim + j];
        double b = h[DST[i] * dim + j];
        uv += a * b;
        uu += a * a;
        vv += b * b;
      }
      sum += DotDecoder.loss(LinkStep.LOGIT_SCALE * uv / Math.sqrt(uu * vv), Y[i]);
    }
    return sum;
  }

  @Test
  void lossIsTheBceOfFiveTimesTheCosineAndItsGradientMatchesFiniteDifferences() {
    int rows = 5;
    int dim = 4;
    float[] h = embeddings(rows, dim, 3);
    LinkPairs p = new LinkPairs(SRC, DST, Y);
    float[] dh = new float[rows * dim];
    StepStats s = LinkStep.lossAndGrad(h, rows, dim, p, dh);
    assertThat(s.lossSum()).isCloseTo(reference(h, dim), within(1e-4));
    double eps = 1e-3;
    for (int i = 0; i < h.length; i++) {
      float keep = h[i];
      h[i] = (float) (keep + eps);
      double up = reference(h, dim);
      h[i] = (float) (keep - eps);
      double down = reference(h, dim);
      h[i] = keep;
      // the gradient is of the mean loss over the pairs
      assertThat((double) dh[i])
          .as("dh[%d]", i)
          .isCloseTo((up - down) / (2 * eps) / SRC.length, within(2e-3));
    }
  }

  @Test
  void scoresAreBoundedByTheScaleWhateverTheNorms() {
    int dim = 4;
    float[] h = embeddings(5, dim, 5);
    for (int i = 0; i < dim; i++) {
      h[i] *= 1000; // one huge row
    }
    float[] z = LinkStep.scoringEmbeddings(h, dim, LinkStep.LOGIT_SCALE);
    float[] out = new float[SRC.length];
    LinkStep.scores(z, dim, SRC, DST, SRC.length, LinkStep.LOGIT_SCALE, out);
    for (float v : out) {
      assertThat(Math.abs(v)).isLessThanOrEqualTo(LinkStep.LOGIT_SCALE + 1e-5f);
    }
    // a row scored against itself is the full scale
    LinkStep.scores(z, dim, new int[] {0}, new int[] {0}, 1, LinkStep.LOGIT_SCALE, out);
    assertThat(out[0]).isCloseTo(LinkStep.LOGIT_SCALE, within(1e-5f));
  }

  @Test
  void modelsWithoutTheScaleAreScoredByThePlainDotProduct() {
    int dim = 4;
    float[] h = embeddings(5, dim, 9);
    float logitScale = LinkStep.logitScale(Map.of("identity.task", "link"));
    assertThat(logitScale).isEqualTo(LinkStep.PLAIN_DOT);
    float[] z = LinkStep.scoringEmbeddings(h, dim, logitScale);
    assertThat(z).isSameAs(h);
    float[] got = new float[SRC.length];
    LinkStep.scores(z, dim, SRC, DST, SRC.length, logitScale, got);
    float[] dot = new float[SRC.length];
    DotDecoder.scores(h, dim, SRC, DST, SRC.length, dot);
    assertThat(got).containsExactly(dot);
    assertThat(LinkStep.logitScale(Map.of("identity." + LinkStep.LOGIT_SCALE_KEY, "5.0")))
        .isEqualTo(5f);
  }
}
