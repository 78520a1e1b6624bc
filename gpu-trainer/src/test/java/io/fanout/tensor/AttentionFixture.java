package io.fanout.tensor;

import java.util.Random;

/**
 * A small seeded attention problem ({@link Backend#attentionAggregate}) with a plain double
 * reference of the forward pass, and a runner of the forward and backward on any backend: shared by
 * the CPU, checking-backend and GPU parity tests.
 */
public final class AttentionFixture {
  public final int rows;
  public final int srcRows;
  public final int heads;
  public final int dim;
  public final int relations;
  public final boolean self;
  public final int selfRel;
  public final float slope = 0.2f;

  /** Attention dropout of the runs (0: none) and its key. */
  public float dropout;

  public final long key = 0x5eed;

  /**
   * The residual's share of the runs (0: no residual) and its weights ({@link #slots()} x heads).
   */
  public float beta;

  public final float[] residual;

  public final int[] indptr;
  public final int[] indices;
  public final int[] rel;
  public final float[] sDst;
  public final float[] sSrc;
  public final float[] sRel;
  public final float[] z;
  public final float[] dOut;

  /** Initial values of the gradients, to check that the backward accumulates. */
  public final float[] dz0;

  public final float[] dsDst0;
  public final float[] dsSrc0;
  public final float[] dsRel0;

  /**
   * {@code rows} destinations over {@code srcRows} sources, up to {@code maxDeg} edges a row (row 1
   * has none), {@code relations} relations (0: none).
   */
  public AttentionFixture(
      long seed,
      int rows,
      int srcRows,
      int heads,
      int dim,
      int relations,
      boolean self,
      int maxDeg) {
    Random r = new Random(seed);
    this.rows = rows;
    this.srcRows = srcRows;
    this.heads = heads;
    this.dim = dim;
    this.relations = relations;
    this.self = self;
    this.selfRel = relations > 0 ? relations - 1 : 0;
    indptr = new int[rows + 1];
    for (int i = 0; i < rows; i++) {
      indptr[i + 1] = indptr[i] + (i == 1 ? 0 : r.nextInt(maxDeg + 1));
    }
    int nnz = indptr[rows];
    indices = new int[nnz];
    rel = relations > 0 ? new int[nnz] : null;
    for (int q = 0; q < nnz; q++) {
      indices[q] = r.nextInt(srcRows);
      if (rel != null) {
        rel[q] = r.nextInt(relations);
      }
    }
    sDst = gauss(r, rows * heads);
    sSrc = gauss(r, srcRows * heads);
    sRel = gauss(r, Math.max(relations, 1) * heads);
    z = gauss(r, srcRows * heads * dim);
    dOut = gauss(r, rows * heads * dim);
    dz0 = gauss(r, z.length);
    dsDst0 = gauss(r, sDst.length);
    dsSrc0 = gauss(r, sSrc.length);
    dsRel0 = gauss(r, sRel.length);
    residual = new float[slots() * heads];
    for (int i = 0; i < residual.length; i++) {
      residual[i] = r.nextFloat();
    }
  }

  private static float[] gauss(Random r, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextGaussian();
    }
    return a;
  }

  public int edges() {
    return indptr[rows];
  }

  public int slots() {
    return edges() + (self ? rows : 0);
  }

  /** The outputs of a forward and backward pass on a backend. */
  public record Results(
      float[] out, float[] alpha, float[] dz, float[] dsDst, float[] dsSrc, float[] dsRel) {}

  /** Runs the forward and the backward (with {@link #dOut}) on {@code b}; frees what it made. */
  public Results run(Backend b) {
    IntTensor tp = up(b, indptr);
    IntTensor ti = up(b, indices.length == 0 ? new int[1] : indices);
    IntTensor tr = rel == null ? null : up(b, rel.length == 0 ? new int[1] : rel);
    AttentionEdges e =
        new AttentionEdges(tp, 0, ti, 0, tr, 0, relations, rows, edges(), self, selfRel);
    FloatTensor[] t = {
      up(b, sDst), up(b, sSrc), up(b, sRel), up(b, z), b.allocFloat(slots() * heads + 1),
      b.allocFloat(rows * heads * dim), up(b, dOut), up(b, dz0), up(b, dsDst0), up(b, dsSrc0),
      up(b, dsRel0), up(b, residual.length == 0 ? new float[1] : residual)
    };
    AttentionHeads h = new AttentionHeads(heads, dim, slope, dropout, key);
    AttentionInputs in = AttentionInputs.of(t[0], t[1], t[2], t[3]);
    AttentionResidual mix = beta > 0f ? new AttentionResidual(beta, FloatView.of(t[11])) : null;
    b.attentionAggregate(e, h, in, mix, FloatView.of(t[4]), FloatView.of(t[5]));
    b.attentionAggregateBackward(
        e,
        h,
        in,
        mix,
        FloatView.of(t[4]),
        FloatView.of(t[6]),
        AttentionInputs.of(t[8], t[9], t[10], t[7]));
    Results res =
        new Results(
            down(b, t[5]),
            java.util.Arrays.copyOf(down(b, t[4]), slots() * heads),
            down(b, t[7]),
            down(b, t[8]),
            down(b, t[9]),
            down(b, t[10]));
    for (FloatTensor x : t) {
      b.free(x);
    }
    b.free(tp);
    b.free(ti);
    if (tr != null) {
      b.free(tr);
    }
    return res;
  }

  /**
   * Runs {@link Backend#attentionResidualWeights} of this block on {@code b} from {@code prev}
   * ({@code prevSlotCount x heads}) and {@code prevSlots} (one per slot); returns its output.
   */
  public float[] residualWeights(Backend b, float[] prev, int[] prevSlots) {
    IntTensor tp = up(b, indptr);
    IntTensor ti = up(b, indices.length == 0 ? new int[1] : indices);
    AttentionEdges e = new AttentionEdges(tp, 0, ti, 0, null, 0, 0, rows, edges(), self, 0);
    FloatTensor tprev = up(b, prev);
    IntTensor ts = up(b, prevSlots.length == 0 ? new int[1] : prevSlots);
    FloatTensor tout = b.allocFloat(Math.max(1, slots() * heads));
    try {
      b.attentionResidualWeights(e, heads, FloatView.of(tprev), ts, FloatView.of(tout));
      return java.util.Arrays.copyOf(down(b, tout), slots() * heads);
    } finally {
      for (Tensor x : new Tensor[] {tp, ti, tprev, ts, tout}) {
        b.free(x);
      }
    }
  }

  public static FloatTensor up(Backend b, float[] a) {
    FloatTensor t = b.allocFloat(a.length);
    b.upload(a, 0, t, 0, a.length);
    return t;
  }

  public static IntTensor up(Backend b, int[] a) {
    IntTensor t = b.allocInt(a.length);
    b.upload(a, 0, t, 0, a.length);
    return t;
  }

  public static float[] down(Backend b, FloatTensor t) {
    float[] a = new float[t.length()];
    b.download(t, 0, a, 0, a.length);
    return a;
  }

  /** The reference forward in double: {@code [out, alpha]}. */
  public double[][] reference(double[] sd, double[] ss, double[] sr, double[] zz) {
    int hd = heads * dim;
    double[] out = new double[rows * hd];
    double[] alpha = new double[slots() * heads];
    int slot = 0;
    for (int i = 0; i < rows; i++) {
      int n = indptr[i + 1] - indptr[i] + (self ? 1 : 0);
      int[] src = new int[n];
      int[] rr = new int[n];
      for (int t = 0; t < n; t++) {
        int q = indptr[i] + t - (self ? 1 : 0);
        boolean loop = self && t == 0;
        src[t] = loop ? i : indices[q];
        rr[t] = rel == null ? -1 : loop ? selfRel : rel[q];
      }
      for (int k = 0; k < heads; k++) {
        double[] ev = new double[n];
        double max = Double.NEGATIVE_INFINITY;
        for (int t = 0; t < n; t++) {
          double v = sd[i * heads + k] + ss[src[t] * heads + k];
          if (rr[t] >= 0) {
            v += sr[rr[t] * heads + k];
          }
          ev[t] = v > 0 ? v : slope * v;
          max = Math.max(max, ev[t]);
        }
        double sum = 0;
        for (int t = 0; t < n; t++) {
          sum += Math.exp(ev[t] - max);
        }
        for (int t = 0; t < n; t++) {
          double a = Math.exp(ev[t] - max) / sum;
          int idx = (slot + t) * heads + k;
          alpha[idx] = a;
          double m =
              dropout <= 0 ? 1 : CounterRng.uniform(key, idx) < dropout ? 0 : 1 / (1.0 - dropout);
          double w = a * m;
          if (beta > 0f) {
            w = (1 - (double) beta) * w + beta * (double) residual[idx];
          }
          for (int d = 0; d < dim; d++) {
            out[i * hd + k * dim + d] += w * zz[src[t] * hd + k * dim + d];
          }
        }
      }
      slot += n;
    }
    return new double[][] {out, alpha};
  }

  /** {@code sum(out * dOut)} of the reference forward. */
  public double objective(double[] sd, double[] ss, double[] sr, double[] zz) {
    double[] out = reference(sd, ss, sr, zz)[0];
    double s = 0;
    for (int i = 0; i < out.length; i++) {
      s += out[i] * dOut[i];
    }
    return s;
  }

  public static double[] d(float[] a) {
    double[] x = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      x[i] = a[i];
    }
    return x;
  }
}
