package io.fanout.train.typed;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.HeldOutEdges;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedHeldOutLinkSampler;
import io.fanout.sample.TypedLinkSampler;
import io.fanout.sample.TypedMiniBatch;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded typed graph whose {@code buys} links follow typed structure: users, items (random
 * features, no signal) and categories (one-hot features); a user likes two categories ({@code
 * liked_by}: category to user), an item is in one ({@code has_item}: category to item), and a user
 * buys items of the categories it likes only. A share of the {@code buys} edges is held out as
 * {@link #val} (one negative each: an item the user does not buy) and left out of {@code buys} and
 * its reverse {@code rev_buys}; only a model that reads the users' and items' categories through
 * two hops of typed relations can tell the held-out pairs from the negatives.
 */
final class LinkCommunityGraph {
  static final int BUYS = 0;
  static final int REV_BUYS = 1;

  /** Fanouts taking every neighbor, for two hops of the graph's four relations. */
  static final int[][] FULL = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};

  final ArrayTypedGraph graph;
  final HeldOutEdges val;

  LinkCommunityGraph(int users, int items, int cats, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int[] itemCat = new int[items];
    List<List<Integer>> byCat = new ArrayList<>();
    for (int c = 0; c < cats; c++) {
      byCat.add(new ArrayList<>());
    }
    for (int i = 0; i < items; i++) {
      itemCat[i] = i % cats;
      byCat.get(itemCat[i]).add(i);
    }
    List<int[]> likes = new ArrayList<>();
    List<int[]> train = new ArrayList<>();
    List<int[]> held = new ArrayList<>();
    HashSet<Long> bought = new HashSet<>();
    for (int u = 0; u < users; u++) {
      int a = r.nextInt(cats);
      int b = (a + 1 + r.nextInt(cats - 1)) % cats;
      for (int c : new int[] {a, b}) {
        likes.add(new int[] {c, u});
        for (int k = 0; k < 3; k++) {
          List<Integer> pool = byCat.get(c);
          int i = pool.get(r.nextInt(pool.size()));
          if (bought.add((long) u << 32 | i)) {
            (r.nextInt(5) == 0 ? held : train).add(new int[] {u, i});
          }
        }
      }
    }
    int[] vs = new int[held.size() * 2];
    int[] vd = new int[vs.length];
    byte[] vl = new byte[vs.length];
    for (int e = 0; e < held.size(); e++) {
      vs[e] = held.get(e)[0];
      vd[e] = held.get(e)[1];
      vl[e] = 1;
      int n;
      do {
        n = r.nextInt(items);
      } while (bought.contains((long) vs[e] << 32 | n));
      vs[held.size() + e] = vs[e];
      vd[held.size() + e] = n;
    }
    val = HeldOutEdges.of(vs, vd, vl);
    float[] userF = noise(r, users, 4);
    float[] itemF = noise(r, items, 4);
    float[] catF = new float[cats * cats];
    for (int c = 0; c < cats; c++) {
      catF[c * cats + c] = 1f;
    }
    int[][] buys = columns(train);
    int[][] liked = columns(likes);
    int[] catOfItem = new int[items];
    int[] itemIds = new int[items];
    for (int i = 0; i < items; i++) {
      catOfItem[i] = itemCat[i];
      itemIds[i] = i;
    }
    graph =
        ArrayTypedGraph.builder()
            .type("user", users, 4, userF, null, null)
            .type("item", items, 4, itemF, null, null)
            .type("cat", cats, cats, catF, null, null)
            .relation("buys", "user", "item", buys[0], buys[1])
            .relation("rev_buys", "item", "user", buys[1], buys[0])
            .relation("liked_by", "cat", "user", liked[0], liked[1])
            .relation("has_item", "cat", "item", catOfItem, itemIds)
            .build();
  }

  /**
   * The link batches of the training {@code buys} edges: 64 edges a batch in each epoch's seeded
   * order, {@link #FULL} fanouts, two uniform negatives an edge; their count known.
   */
  TypedEpochs linkEpochs(long seed) {
    TrainEdges edges = TrainEdges.ofRelation(graph.inNeighbors(BUYS), false);
    TypedLinkSampler s =
        new TypedLinkSampler(
            graph,
            BUYS,
            new int[] {REV_BUYS},
            FULL,
            seed,
            edges,
            NegativeSampler.of("uniform", graph.inNeighbors(BUYS)),
            2,
            false);
    TypedLinkSampler.Worker w = s.newWorker();
    int batches = (edges.ids().length + 63) / 64;
    return new TypedEpochs() {
      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch) {
        int[] order = SeedOrder.order(edges.ids(), seed, epoch);
        List<TypedMiniBatch> out = new ArrayList<>();
        for (int at = 0, b = 0; at < order.length; at += 64, b++) {
          out.add(w.sample(epoch, b, order, at, Math.min(64, order.length - at)));
        }
        return out.iterator();
      }

      @Override
      public int batches(int epoch) {
        return batches;
      }
    };
  }

  /**
   * The link batches of the held-out {@link #val} pairs, as {@code sample --task link --split val}
   * cuts them: {@code batch} pairs a batch in each epoch's seeded order, with {@code fanouts}.
   */
  TypedEpochs valEpochs(int[][] fanouts, long seed, int batch) {
    TypedHeldOutLinkSampler s =
        new TypedHeldOutLinkSampler(graph, BUYS, new int[] {REV_BUYS}, fanouts, seed, val, false);
    TypedHeldOutLinkSampler.Worker w = s.newWorker();
    int[] ids = new int[val.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    int batches = (ids.length + batch - 1) / batch;
    return new TypedEpochs() {
      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch) {
        int[] order = SeedOrder.order(ids, seed, epoch);
        List<TypedMiniBatch> out = new ArrayList<>();
        for (int at = 0, b = 0; at < order.length; at += batch, b++) {
          out.add(w.sample(epoch, b, order, at, Math.min(batch, order.length - at)));
        }
        return out.iterator();
      }

      @Override
      public int batches(int epoch) {
        return batches;
      }
    };
  }

  private static float[] noise(SplittableRandom r, int n, int dim) {
    float[] f = new float[n * dim];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) r.nextGaussian();
    }
    return f;
  }

  private static int[][] columns(List<int[]> edges) {
    int[][] out = new int[2][edges.size()];
    for (int e = 0; e < edges.size(); e++) {
      out[0][e] = edges.get(e)[0];
      out[1][e] = edges.get(e)[1];
    }
    return out;
  }
}
