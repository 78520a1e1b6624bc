package io.fanout.spark.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.StorePartition;
import io.fanout.sample.BatchBuilder;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.NodeSampler;
import io.fanout.sample.PairSet;
import io.fanout.sample.PartialBatch;
import io.fanout.sample.SampleHash;
import io.fanout.sample.WeightedNodeSampler;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import scala.Tuple2;

/**
 * One hop of the partitioned mode: a batch's frontier split into {@link Request}s to the store
 * partitions owning its nodes, each partition's sampled neighbors as an {@link Answer}, and the
 * batch extended by its answers in destination order.
 */
final class HopExchange {
  private HopExchange() {}

  /** The answers of a task's batches that its own store partition holds, sampled in place. */
  static Iterator<Tuple2<Long, Answer>> localAnswers(
      SampleSpec spec,
      Iterator<Tuple2<Long, PartialBatch>> batches,
      long[] firsts,
      int hop,
      HomePartitioner home) {
    List<Tuple2<Long, Answer>> out = new ArrayList<>();
    while (batches.hasNext()) {
      Tuple2<Long, PartialBatch> t = batches.next();
      int own = home.getPartition(t._1());
      Iterator<Tuple2<Integer, Request>> requests = frontier(t._1(), t._2(), firsts);
      while (requests.hasNext()) {
        Tuple2<Integer, Request> r = requests.next();
        if (r._1() == own) {
          out.add(new Tuple2<>(t._1(), sample(spec, own, hop, r._2())));
        }
      }
    }
    return out.iterator();
  }

  /** A batch's requests to store partitions other than its own. */
  static Iterator<Tuple2<Integer, Request>> remoteRequests(
      long id, PartialBatch pb, long[] firsts, HomePartitioner home) {
    int own = home.getPartition(id);
    List<Tuple2<Integer, Request>> out = new ArrayList<>();
    Iterator<Tuple2<Integer, Request>> requests = frontier(id, pb, firsts);
    while (requests.hasNext()) {
      Tuple2<Integer, Request> r = requests.next();
      if (r._1() != own) {
        out.add(r);
      }
    }
    return out.iterator();
  }

  /** The answers of both iterables, {@code a}'s first. */
  static <A> List<A> both(Iterable<A> a, Iterable<A> b) {
    List<A> all = new ArrayList<>();
    a.forEach(all::add);
    b.forEach(all::add);
    return all;
  }

  /** A batch's nodes grouped by owning partition. */
  static final class Request implements Serializable {
    private static final long serialVersionUID = 1L;
    final long batchId;
    final int[] local;
    final int[] nodes;

    Request(long batchId, int[] local, int[] nodes) {
      this.batchId = batchId;
      this.local = local;
      this.nodes = nodes;
    }
  }

  /** A partition's answer for some of a batch's nodes: per node a slice of {@code values}. */
  static final class Answer implements Serializable {
    private static final long serialVersionUID = 1L;
    final int[] local;
    final int[] counts;
    final int[] ints;
    final byte[] bytes;
    final int[] labels; // hop 1 of a link batch: the labels of the seeds in local

    Answer(int[] local, int[] counts, int[] ints, byte[] bytes) {
      this(local, counts, ints, bytes, null);
    }

    Answer(int[] local, int[] counts, int[] ints, byte[] bytes, int[] labels) {
      this.local = local;
      this.counts = counts;
      this.ints = ints;
      this.bytes = bytes;
      this.labels = labels;
    }
  }

  /** Batch {@code id}'s nodes grouped into one request per owning store partition. */
  static Iterator<Tuple2<Integer, Request>> frontier(long id, PartialBatch pb, long[] firsts) {
    List<Tuple2<Integer, Request>> out = new ArrayList<>();
    group(id, pb.nodes, pb.nodes.length, firsts, 0, out);
    return out.iterator();
  }

  /**
   * Adds to {@code out} batch {@code id}'s nodes {@code nodes[0 .. count)} grouped into one request
   * per owning partition, keyed {@code ownerBase + p} for partition {@code p} of {@code firsts}
   * (its first ids, the end last), in partition order; each request lists its nodes in batch order.
   */
  static void group(
      long id,
      int[] nodes,
      int count,
      long[] firsts,
      int ownerBase,
      List<Tuple2<Integer, Request>> out) {
    int n = count;
    int parts = firsts.length - 1;
    int[] owner = new int[n];
    int[] per = new int[parts];
    for (int i = 0; i < n; i++) {
      int p = Arrays.binarySearch(firsts, nodes[i]);
      p = p >= 0 ? p : -p - 2;
      while (p + 1 < parts && firsts[p + 1] <= nodes[i]) {
        p++; // skip empty partitions sharing a start
      }
      owner[i] = p;
      per[p]++;
    }
    int[][] local = new int[parts][];
    int[][] ids = new int[parts][];
    int[] fill = new int[parts];
    for (int p = 0; p < parts; p++) {
      if (per[p] > 0) {
        local[p] = new int[per[p]];
        ids[p] = new int[per[p]];
      }
    }
    for (int i = 0; i < n; i++) {
      int p = owner[i];
      local[p][fill[p]] = i;
      ids[p][fill[p]++] = nodes[i];
    }
    for (int p = 0; p < parts; p++) {
      if (per[p] > 0) {
        out.add(new Tuple2<>(ownerBase + p, new Request(id, local[p], ids[p])));
      }
    }
  }

  /**
   * Partition {@code p}'s answer to {@code r} at hop {@code hop}: each node's sampled neighbors,
   * and at hop 1 of a link batch the seeds' labels.
   */
  static Answer sample(SampleSpec spec, int p, int hop, Request r) {
    Answer a = sampleRows(spec, p, hop, r);
    if (spec.link == null || hop != 1) {
      return a;
    }
    // A link batch's seeds are pair endpoints, not seeds with their labels: the owners add them.
    StorePartition part = OpenPartitions.get(spec, p);
    int[] labels = new int[r.nodes.length];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = part.label(r.nodes[i]);
    }
    return new Answer(a.local, a.counts, a.ints, null, labels);
  }

  private static Answer sampleRows(SampleSpec spec, int p, int hop, Request r) {
    CsrGraph g = OpenPartitions.get(spec, p).csr();
    int epoch = (int) (r.batchId >>> 32);
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(spec.seed, epoch), (int) r.batchId);
    int fanout = spec.fanouts[hop - 1];
    if (spec.weighted) {
      return sampleWeighted(OpenPartitions.get(spec, p), g, batchKey, hop, fanout, r);
    }
    NodeSampler ns = new NodeSampler();
    int[] counts = new int[r.nodes.length];
    long total = 0;
    for (int i = 0; i < r.nodes.length; i++) {
      int v = r.nodes[i];
      counts[i] = NodeSampler.sampleSize(g.rowEnd(v) - g.rowStart(v), fanout);
      total += counts[i];
    }
    int[] ids = new int[(int) total];
    int[] positions = new int[64];
    int o = 0;
    for (int i = 0; i < r.nodes.length; i++) {
      if (positions.length < counts[i]) {
        positions = new int[Math.max(counts[i], 2 * positions.length)];
      }
      o += ns.sampleNeighbors(g, batchKey, hop, r.nodes[i], fanout, positions, ids, o);
    }
    return new Answer(r.local, counts, ids, null);
  }

  /** {@link #sample} proportional to the edge weights: the counts come out of the sampling. */
  private static Answer sampleWeighted(
      StorePartition part, CsrGraph g, long batchKey, int hop, int fanout, Request r) {
    int[] counts = new int[r.nodes.length];
    int[] ids =
        new WeightedNodeSampler()
            .sampleRows(g, part.weights(), batchKey, hop, r.nodes, r.nodes.length, fanout, counts);
    return new Answer(r.local, counts, ids, null);
  }

  /** {@code pb} extended by one hop from its answers, in destination order. */
  static PartialBatch extend(SampleSpec spec, PartialBatch pb, Iterable<Answer> answers) {
    int n = pb.nodes.length;
    int[] counts = new int[n];
    int[] seen = new int[n];
    for (Answer a : answers) {
      for (int k = 0; k < a.local.length; k++) {
        counts[a.local[k]] = a.counts[k];
        seen[a.local[k]]++;
      }
    }
    int[] ptr = new int[n + 1];
    for (int i = 0; i < n; i++) {
      if (seen[i] != 1) {
        throw new IllegalStateException(
            "batch " + pb.batch + ": node " + pb.nodes[i] + " answered " + seen[i] + " times");
      }
      ptr[i + 1] = ptr[i] + counts[i];
    }
    int[] ids = new int[ptr[n]];
    int[] labels = pb.pairs != null && pb.hops == 0 ? new int[n] : pb.labels;
    for (Answer a : answers) {
      int o = 0;
      for (int k = 0; k < a.local.length; k++) {
        System.arraycopy(a.ints, o, ids, ptr[a.local[k]], a.counts[k]);
        o += a.counts[k];
        if (a.labels != null) {
          labels[a.local[k]] = a.labels[k];
        }
      }
    }
    if (pb.pairs != null) {
      ids = positiveEdges(pb).dropFrom(ptr, ids, i -> pb.nodes[i]);
    }
    BatchBuilder b = new BatchBuilder();
    b.resume(pb);
    b.addHop(ptr, ids);
    return b.snapshot(pb.epoch, pb.batch, labels, pb.pairs);
  }

  /** A link batch's positive edges (global ids), which none of its blocks may contain. */
  private static PairSet positiveEdges(PartialBatch pb) {
    PairSet s = new PairSet();
    LinkPairs p = pb.pairs;
    for (int i = 0; i < p.size(); i++) {
      if (p.label()[i] == 1) {
        s.add(pb.nodes[p.src()[i]], pb.nodes[p.dst()[i]]);
      }
    }
    return s;
  }

  /** The only element of {@code it}; fails when a batch's state is missing or doubled. */
  static <T> T one(Iterable<T> it) {
    Iterator<T> i = it.iterator();
    if (!i.hasNext()) {
      throw new IllegalStateException("a batch's state is missing");
    }
    T t = i.next();
    if (i.hasNext()) {
      throw new IllegalStateException("a batch's state appears twice");
    }
    return t;
  }
}
