package io.fanout.tensor;

import java.util.Arrays;

/**
 * Edge attention on the CPU ({@link Backend#attentionAggregate}, {@link Backend#headScores} and
 * their backward passes), split across the cores so that every output element is summed by one
 * thread in edge order and the bits do not depend on the thread count. The CUDA kernels
 * (attention.cu) add in the same orders.
 */
final class CpuAttentionKernels {
  /** Rows per partial sum of the relation-score gradient (the CUDA kernels use the same). */
  static final int REL_CHUNK_ROWS = 256;

  private CpuAttentionKernels() {}

  /** The host arrays of an {@link AttentionEdges}. */
  record Edges(
      int[] indptr,
      int pOff,
      int[] indices,
      int iOff,
      int[] rel,
      int rOff,
      int relations,
      int rows,
      boolean self,
      int selfRel) {
    int base() {
      return indptr[pOff];
    }

    /** The first slot of row {@code i}. */
    int firstSlot(int i) {
      return indptr[pOff + i] - base() + (self ? i : 0);
    }

    /** Slots of row {@code i}. */
    int count(int i) {
      return indptr[pOff + i + 1] - indptr[pOff + i] + (self ? 1 : 0);
    }

    /** The source row of the {@code t}-th slot of row {@code i}. */
    int src(int i, int t) {
      if (self) {
        return t == 0 ? i : indices[iOff + indptr[pOff + i] + t - 1];
      }
      return indices[iOff + indptr[pOff + i] + t];
    }

    /** The relation of the {@code t}-th slot of row {@code i}; -1 without relations. */
    int rel(int i, int t) {
      if (rel == null) {
        return -1;
      }
      if (self) {
        return t == 0 ? selfRel : rel[rOff + indptr[pOff + i] + t - 1];
      }
      return rel[rOff + indptr[pOff + i] + t];
    }
  }

  /** {@code scores[r, k] = z[r, head k] . a[head k]}, summed in column order. */
  static void headScores(
      int rows, int heads, int dim, FloatView zAt, FloatView aAt, FloatView sAt) {
    float[] z = CpuBackend.f(zAt.tensor());
    int zOff = zAt.offset();
    float[] a = CpuBackend.f(aAt.tensor());
    int aOff = aAt.offset();
    float[] s = CpuBackend.f(sAt.tensor());
    int sOff = sAt.offset();
    int hd = heads * dim;
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < heads; k++) {
        int zo = zOff + r * hd + k * dim;
        int ao = aOff + k * dim;
        float acc = 0f;
        for (int d = 0; d < dim; d++) {
          acc += z[zo + d] * a[ao + d];
        }
        s[sOff + r * heads + k] = acc;
      }
    }
  }

  static void headScoresBackward(
      int rows,
      int heads,
      int dim,
      FloatView zAt,
      FloatView aAt,
      FloatView dsAt,
      FloatView dzAt,
      FloatView daAt) {
    float[] z = CpuBackend.f(zAt.tensor());
    int zOff = zAt.offset();
    float[] a = CpuBackend.f(aAt.tensor());
    int aOff = aAt.offset();
    float[] ds = CpuBackend.f(dsAt.tensor());
    int dsOff = dsAt.offset();
    int hd = heads * dim;
    if (dzAt != null) {
      float[] dz = CpuBackend.f(dzAt.tensor());
      int dzOff = dzAt.offset();
      for (int r = 0; r < rows; r++) {
        for (int k = 0; k < heads; k++) {
          float g = ds[dsOff + r * heads + k];
          int o = dzOff + r * hd + k * dim;
          int ao = aOff + k * dim;
          for (int d = 0; d < dim; d++) {
            dz[o + d] += g * a[ao + d];
          }
        }
      }
    }
    if (daAt != null) {
      float[] da = CpuBackend.f(daAt.tensor());
      int daOff = daAt.offset();
      for (int r = 0; r < rows; r++) {
        for (int k = 0; k < heads; k++) {
          float g = ds[dsOff + r * heads + k];
          int zo = zOff + r * hd + k * dim;
          int o = daOff + k * dim;
          for (int d = 0; d < dim; d++) {
            da[o + d] += g * z[zo + d];
          }
        }
      }
    }
  }

  /**
   * The factor of attention weight {@code idx} (slot times heads plus head) under dropout {@code
   * p}: 0 when dropped, else {@code scale = 1 / (1 - p)}; 1 without dropout.
   */
  static float keep(float p, float scale, long key, long idx) {
    if (p <= 0f) {
      return 1f;
    }
    return CounterRng.uniform(key, idx) < p ? 0f : scale;
  }

  /**
   * The host arrays of the scores of an {@link AttentionInputs} (or of their gradients); {@code
   * rel} is null without relations.
   */
  record Scores(float[] dst, int dstOff, float[] src, int srcOff, float[] rel, int relOff) {
    static Scores of(Edges e, AttentionInputs in) {
      FloatView r = in.relScores();
      boolean withRel = e.rel != null && r != null;
      return new Scores(
          CpuBackend.f(in.dstScores().tensor()),
          in.dstScores().offset(),
          CpuBackend.f(in.srcScores().tensor()),
          in.srcScores().offset(),
          withRel ? CpuBackend.f(r.tensor()) : null,
          withRel ? r.offset() : 0);
    }

    /** The raw score of slot {@code t} of row {@code i}, head {@code k}. */
    float raw(Edges e, int i, int t, int k, int heads) {
      float v = dst[dstOff + i * heads + k] + src[srcOff + e.src(i, t) * heads + k];
      int r = e.rel(i, t);
      if (r >= 0) {
        v += rel[relOff + r * heads + k];
      }
      return v;
    }
  }

  /** The host array of a residual's weights and its offset; null without a residual. */
  private record Mix(float kept, float beta, float[] w, int off) {
    static Mix of(AttentionResidual res) {
      return res == null
          ? null
          : new Mix(
              res.keptShare(),
              res.beta(),
              CpuBackend.f(res.weights().tensor()),
              res.weights().offset());
    }

    /** The weight that weight {@code idx} aggregates with after dropout ({@code dropped}). */
    float weight(float dropped, int idx) {
      return kept * dropped + beta * w[off + idx];
    }
  }

  static void attentionAggregate(
      Edges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alphaAt,
      FloatView outAt) {
    Pass.of(e, h, in, res, alphaAt).forward(outAt);
  }

  static void attentionAggregateBackward(
      Edges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alphaAt,
      FloatView dOutAt,
      AttentionInputs dIn) {
    Pass.of(e, h, in, res, alphaAt).backward(dOutAt, dIn);
  }

  /**
   * What the forward and the backward pass of one attention read alike, as host arrays: the edges,
   * the heads' settings ({@code hd = heads * dim}, {@code scale} the kept weights' dropout scale),
   * the raw scores' parts, the residual ({@code mix}, null without one), the values {@code z} and
   * the attention weights {@code alpha} (slot times heads plus head).
   */
  private record Pass(
      Edges e,
      int heads,
      int dim,
      int hd,
      float slope,
      float dropout,
      float scale,
      long key,
      Mix mix,
      Scores sc,
      float[] z,
      int zOff,
      float[] alpha,
      int alphaOff) {
    static Pass of(
        Edges e, AttentionHeads h, AttentionInputs in, AttentionResidual res, FloatView alphaAt) {
      return new Pass(
          e,
          h.heads(),
          h.headDim(),
          h.heads() * h.headDim(),
          h.slope(),
          h.dropout(),
          h.keptScale(),
          h.key(),
          Mix.of(res),
          Scores.of(e, in),
          CpuBackend.f(in.z().tensor()),
          in.z().offset(),
          CpuBackend.f(alphaAt.tensor()),
          alphaAt.offset());
    }

    /**
     * The weight slot {@code t} of a row aggregates with in head {@code k}: its attention weight
     * (the row's start at {@code a0} in {@code alpha}, its first slot {@code slot0}) after dropout,
     * mixed with the residual's.
     */
    float weight(int a0, long slot0, int t, int k) {
      float m = keep(dropout, scale, key, (slot0 + t) * heads + k);
      float w = m == 1f ? alpha[a0 + t * heads + k] : alpha[a0 + t * heads + k] * m;
      if (mix != null) {
        w = mix.weight(w, (int) (slot0 + t) * heads + k);
      }
      return w;
    }

    void forward(FloatView outAt) {
      float[] out = CpuBackend.f(outAt.tensor());
      int outOff = outAt.offset();
      long work = (long) (e.indptr[e.pOff + e.rows] - e.base() + e.rows) * hd;
      ColumnParallel.run(
          work,
          e.rows,
          (r0, r1) -> {
            for (int i = r0; i < r1; i++) {
              int o = outOff + i * hd;
              Arrays.fill(out, o, o + hd, 0f);
              int n = e.count(i);
              if (n == 0) {
                continue;
              }
              int a0 = alphaOff + e.firstSlot(i) * heads;
              for (int k = 0; k < heads; k++) {
                float max = Float.NEGATIVE_INFINITY;
                for (int t = 0; t < n; t++) {
                  float v = sc.raw(e, i, t, k, heads);
                  v = v > 0f ? v : slope * v;
                  alpha[a0 + t * heads + k] = v;
                  max = Math.max(max, v);
                }
                float sum = 0f;
                for (int t = 0; t < n; t++) {
                  float ex = (float) Math.exp(alpha[a0 + t * heads + k] - max);
                  alpha[a0 + t * heads + k] = ex;
                  sum += ex;
                }
                float inv = 1f / sum;
                for (int t = 0; t < n; t++) {
                  alpha[a0 + t * heads + k] *= inv;
                }
              }
              long slot0 = e.firstSlot(i);
              for (int t = 0; t < n; t++) {
                int zo = zOff + e.src(i, t) * hd;
                for (int k = 0; k < heads; k++) {
                  float w = weight(a0, slot0, t, k);
                  int c0 = k * dim;
                  for (int d = 0; d < dim; d++) {
                    out[o + c0 + d] += w * z[zo + c0 + d];
                  }
                }
              }
            }
          });
    }

    void backward(FloatView dOutAt, AttentionInputs dIn) {
      Scores dsc = Scores.of(e, dIn);
      float[] dOut = CpuBackend.f(dOutAt.tensor());
      int dOutOff = dOutAt.offset();
      float[] dz = CpuBackend.f(dIn.z().tensor());
      int dzOff = dIn.z().offset();
      float[] dsDst = dsc.dst();
      int dsDstOff = dsc.dstOff();
      float[] dsSrc = dsc.src();
      int dsSrcOff = dsc.srcOff();
      int rows = e.rows;
      int slots = e.indptr[e.pOff + rows] - e.base() + (e.self ? rows : 0);
      long work = (long) (slots + rows) * hd;
      // the gradient of each slot's raw score (before the LeakyReLU), row by row
      float[] dRaw = new float[slots * heads];
      ColumnParallel.run(
          work,
          rows,
          (r0, r1) -> {
            for (int i = r0; i < r1; i++) {
              int n = e.count(i);
              if (n == 0) {
                continue;
              }
              int s0 = e.firstSlot(i) * heads;
              int a0 = alphaOff + s0;
              int go = dOutOff + i * hd;
              for (int k = 0; k < heads; k++) {
                float dot = 0f;
                for (int t = 0; t < n; t++) {
                  int zo = zOff + e.src(i, t) * hd + k * dim;
                  float da = 0f;
                  for (int d = 0; d < dim; d++) {
                    da += dOut[go + k * dim + d] * z[zo + d];
                  }
                  float m = keep(dropout, scale, key, (long) s0 + t * heads + k);
                  if (m != 1f) {
                    da *= m;
                  }
                  if (mix != null) {
                    da *= mix.kept();
                  }
                  dRaw[s0 + t * heads + k] = da;
                  dot += alpha[a0 + t * heads + k] * da;
                }
                float sum = 0f;
                for (int t = 0; t < n; t++) {
                  float de = alpha[a0 + t * heads + k] * (dRaw[s0 + t * heads + k] - dot);
                  float v = sc.raw(e, i, t, k, heads);
                  float g = v > 0f ? de : slope * de;
                  dRaw[s0 + t * heads + k] = g;
                  sum += g;
                }
                dsDst[dsDstOff + i * heads + k] += sum;
              }
            }
          });
      // into the source rows, scattered in slot order: split by columns, each thread visits all
      ColumnParallel.run(
          work,
          hd,
          (c0, c1) -> {
            for (int i = 0; i < rows; i++) {
              int n = e.count(i);
              int a0 = alphaOff + e.firstSlot(i) * heads;
              int go = dOutOff + i * hd;
              long slot0 = e.firstSlot(i);
              for (int t = 0; t < n; t++) {
                int so = dzOff + e.src(i, t) * hd;
                for (int c = c0; c < c1; c++) {
                  dz[so + c] += weight(a0, slot0, t, c / dim) * dOut[go + c];
                }
              }
            }
          });
      for (int i = 0; i < rows; i++) {
        int n = e.count(i);
        int s0 = e.firstSlot(i) * heads;
        for (int t = 0; t < n; t++) {
          int so = dsSrcOff + e.src(i, t) * heads;
          for (int k = 0; k < heads; k++) {
            dsSrc[so + k] += dRaw[s0 + t * heads + k];
          }
        }
      }
      if (e.rel != null && dsc.rel() != null) {
        relationGradient(e, heads, dRaw, dsc.rel(), dsc.relOff());
      }
    }
  }

  /** {@link Backend#attentionResidualWeights}: one row at a time, sums in slot order. */
  static void attentionResidualWeights(
      Edges e, int heads, FloatView prevAt, int[] prevSlots, FloatView outAt) {
    float[] prev = CpuBackend.f(prevAt.tensor());
    int prevOff = prevAt.offset();
    float[] out = CpuBackend.f(outAt.tensor());
    int outOff = outAt.offset();
    for (int i = 0; i < e.rows; i++) {
      int n = e.count(i);
      int q0 = e.firstSlot(i);
      for (int k = 0; k < heads; k++) {
        float sum = 0f;
        for (int t = 0; t < n; t++) {
          int p = prevSlots[q0 + t];
          if (p >= 0) {
            sum += prev[prevOff + p * heads + k];
          }
        }
        for (int t = 0; t < n; t++) {
          int p = prevSlots[q0 + t];
          out[outOff + (q0 + t) * heads + k] =
              p >= 0 && sum > 0f ? prev[prevOff + p * heads + k] / sum : 0f;
        }
      }
    }
  }

  /**
   * {@code dsRel[r, k] +=} the slot gradients of relation {@code r}: summed in slot order within
   * chunks of {@link #REL_CHUNK_ROWS} rows, starting from zero, and the chunks' sums added in chunk
   * order.
   */
  private static void relationGradient(
      Edges e, int heads, float[] dRaw, float[] dsRel, int dsRelOff) {
    int relations = e.relations;
    float[] part = new float[relations * heads];
    for (int c0 = 0; c0 < e.rows; c0 += REL_CHUNK_ROWS) {
      Arrays.fill(part, 0f);
      int c1 = Math.min(e.rows, c0 + REL_CHUNK_ROWS);
      for (int i = c0; i < c1; i++) {
        int n = e.count(i);
        int s0 = e.firstSlot(i) * heads;
        for (int t = 0; t < n; t++) {
          int r = e.rel(i, t);
          for (int k = 0; k < heads; k++) {
            part[r * heads + k] += dRaw[s0 + t * heads + k];
          }
        }
      }
      for (int x = 0; x < part.length; x++) {
        dsRel[dsRelOff + x] += part[x];
      }
    }
  }
}
