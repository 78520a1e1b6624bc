package io.fanout.spark.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.TypedStorePartition;
import io.fanout.sample.NodeSampler;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedLabels;
import io.fanout.sample.TypedBatchBuilder;
import io.fanout.sample.TypedPartialBatch;
import io.fanout.sample.WeightedNodeSampler;
import io.fanout.spark.sample.HopExchange.Request;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import scala.Tuple2;

/**
 * One hop of the partitioned mode on a typed store. A batch's destinations at hop {@code h} are,
 * per type with a relation into it sampled at {@code h}, that type's nodes reached before the hop
 * (and, before hop 1 of a node batch, the seeds, whose owners answer their labels); they go as
 * {@link Request}s to the store partitions of their type owning them ({@link TypedOwners}). An
 * owner draws, for every relation into its type sampled at the hop, each node's in-neighbors from
 * its own CSR part with the replicated sampler's draws ({@link NodeSampler#sampleNeighbors} keyed
 * by {@link SampleHash#relationKey}; {@code --weighted}, a weighted relation's with {@link
 * WeightedNodeSampler#sampleRows} under the same key), and at hop 1 the seeds' labels; the batch is
 * then extended relation by relation through {@link TypedBatchBuilder}, as the replicated sampler
 * extends it.
 */
final class TypedHopExchange {
  private TypedHopExchange() {}

  /**
   * An owner's answer for some of a batch's nodes of its type: per relation sampled, each node's
   * neighbors as a slice of {@code ids}; at hop 1 of the seed type also the seeds' labels.
   */
  static final class Answer implements Serializable {
    private static final long serialVersionUID = 1L;
    final int type;

    /** Indices into the batch's nodes of {@link #type}. */
    final int[] local;

    /** The relations sampled, ascending. */
    final int[] relations;

    /** {@code counts[k][i]}: neighbors of {@code local[i]} over {@code relations[k]}. */
    final int[][] counts;

    /**
     * {@code ids[k]}: those neighbors (type-local ids of the source type), in {@code local} order.
     */
    final int[][] ids;

    /** The seeds' labels (hop 1, seed type), or null. */
    final int[] labels;

    /** The seeds' label set sizes and classes (multi-label), or null. */
    final int[] labelCounts;

    final int[] labelIds;

    Answer(
        int type,
        int[] local,
        int[] relations,
        int[][] counts,
        int[][] ids,
        int[] labels,
        int[] labelCounts,
        int[] labelIds) {
      this.type = type;
      this.local = local;
      this.relations = relations;
      this.counts = counts;
      this.ids = ids;
      this.labels = labels;
      this.labelCounts = labelCounts;
      this.labelIds = labelIds;
    }
  }

  /** The relations into {@code type} sampled at {@code hop}, ascending. */
  static int[] sampled(TypedSampleSpec spec, TypedOwners owners, int type, int hop) {
    int n = 0;
    int[] out = new int[owners.numRelations()];
    for (int r = 0; r < out.length; r++) {
      if (owners.dstType[r] == type && spec.fanouts[r][hop - 1] != 0) {
        out[n++] = r;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * Batch {@code id}'s requests at hop {@code pb.hops + 1}: per type asked (a relation into it
   * sampled at the hop; at hop 1 also the seed type, for the labels), its nodes grouped by owner.
   */
  static Iterator<Tuple2<Integer, Request>> frontier(
      TypedSampleSpec spec, TypedOwners owners, long id, TypedPartialBatch pb) {
    int hop = pb.hops + 1;
    List<Tuple2<Integer, Request>> out = new ArrayList<>();
    for (int t = 0; t < owners.numTypes(); t++) {
      boolean asked =
          sampled(spec, owners, t, hop).length > 0 || (t == spec.seedType && pb.labels == null);
      int[] nodes = pb.blocks.nodes()[t];
      if (asked && nodes.length > 0) {
        HopExchange.group(id, nodes, nodes.length, owners.starts(t), owners.first(t), out);
      }
    }
    return out.iterator();
  }

  /**
   * {@code --batch-by-partition}: the answers of a task's batches that their home answers in place.
   * A batch's home ({@code home}, the store partition of the seed type holding its first seed) is
   * partition {@code p} of every type: its requests to owners of partition index {@code p}, of any
   * type, are sampled by the task holding the batch.
   */
  static Iterator<Tuple2<Long, Answer>> localAnswers(
      TypedSampleSpec spec,
      TypedOwners owners,
      Iterator<Tuple2<Long, TypedPartialBatch>> batches,
      int hop,
      HomePartitioner home) {
    List<Tuple2<Long, Answer>> out = new ArrayList<>();
    while (batches.hasNext()) {
      Tuple2<Long, TypedPartialBatch> t = batches.next();
      int own = home.getPartition(t._1());
      Iterator<Tuple2<Integer, Request>> requests = frontier(spec, owners, t._1(), t._2());
      while (requests.hasNext()) {
        Tuple2<Integer, Request> r = requests.next();
        if (owners.part(r._1()) == own) {
          out.add(new Tuple2<>(t._1(), sample(spec, owners, r._1(), hop, r._2())));
        }
      }
    }
    return out.iterator();
  }

  /** {@code --batch-by-partition}: batch {@code id}'s requests to owners away from its home. */
  static Iterator<Tuple2<Integer, Request>> remoteRequests(
      TypedSampleSpec spec,
      TypedOwners owners,
      long id,
      TypedPartialBatch pb,
      HomePartitioner home) {
    int own = home.getPartition(id);
    List<Tuple2<Integer, Request>> out = new ArrayList<>();
    Iterator<Tuple2<Integer, Request>> requests = frontier(spec, owners, id, pb);
    while (requests.hasNext()) {
      Tuple2<Integer, Request> r = requests.next();
      if (owners.part(r._1()) != own) {
        out.add(r);
      }
    }
    return out.iterator();
  }

  /** Owner {@code owner}'s answer to {@code r} at hop {@code hop}. */
  static Answer sample(TypedSampleSpec spec, TypedOwners owners, int owner, int hop, Request r) {
    int type = owners.type(owner);
    TypedStorePartition part = TypedOpenPartitions.get(spec, type, owners.part(owner));
    int epoch = (int) (r.batchId >>> 32);
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(spec.seed, epoch), (int) r.batchId);
    int[] relations = sampled(spec, owners, type, hop);
    int[][] counts = new int[relations.length][];
    int[][] ids = new int[relations.length][];
    NodeSampler ns = new NodeSampler();
    WeightedNodeSampler ws = null;
    int[] positions = new int[64];
    for (int k = 0; k < relations.length; k++) {
      int rel = relations[k];
      CsrGraph g = part.inNeighbors(rel);
      int fanout = spec.fanouts[rel][hop - 1];
      long relKey = SampleHash.relationKey(batchKey, rel);
      EdgeWeights w = spec.weighted ? part.weights(rel) : null;
      if (w != null) {
        ws = ws == null ? new WeightedNodeSampler() : ws;
        counts[k] = new int[r.nodes.length];
        ids[k] = ws.sampleRows(g, w, relKey, hop, r.nodes, r.nodes.length, fanout, counts[k]);
        continue;
      }
      int[] c = new int[r.nodes.length];
      long total = 0;
      for (int i = 0; i < c.length; i++) {
        int v = r.nodes[i];
        long start = g.rowStart(v);
        c[i] = NodeSampler.sampleSize(NodeSampler.rowDegree(g, v, start), fanout);
        total += c[i];
      }
      if (total > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("hop " + hop + " samples more than 2^31 edges");
      }
      int[] out = new int[(int) total];
      int o = 0;
      for (int i = 0; i < c.length; i++) {
        if (positions.length < c[i]) {
          positions = new int[Math.max(c[i], 2 * positions.length)];
        }
        o += ns.sampleNeighbors(g, relKey, hop, r.nodes[i], fanout, positions, out, o);
      }
      counts[k] = c;
      ids[k] = out;
    }
    int[] labels = null;
    int[] labelCounts = null;
    int[] labelIds = null;
    if (hop == 1 && type == spec.seedType && spec.link == null) {
      labels = new int[r.nodes.length];
      for (int i = 0; i < labels.length; i++) {
        labels[i] = part.label(r.nodes[i]);
      }
      if (owners.multiLabel[spec.seedType]) {
        labelCounts = new int[r.nodes.length];
        int[][] sets = new int[r.nodes.length][];
        int n = 0;
        for (int i = 0; i < sets.length; i++) {
          sets[i] = part.labelSet(r.nodes[i]);
          labelCounts[i] = sets[i].length;
          n += sets[i].length;
        }
        labelIds = new int[n];
        n = 0;
        for (int[] set : sets) {
          System.arraycopy(set, 0, labelIds, n, set.length);
          n += set.length;
        }
      }
    }
    return new Answer(type, r.local, relations, counts, ids, labels, labelCounts, labelIds);
  }

  /** A builder of the request's batches (of a link request, with its link relation). */
  static TypedBatchBuilder builder(TypedSampleSpec spec, TypedOwners owners) {
    return new TypedBatchBuilder(
        owners.numTypes(),
        owners.srcType,
        owners.dstType,
        spec.seedType,
        spec.link == null ? null : spec.link.types());
  }

  /**
   * {@code pb} extended by one hop from its answers, relation by relation in relation order (a link
   * batch's blocks without its positive edges, {@link TypedBatchBuilder#addBlock}).
   */
  static TypedPartialBatch extend(
      TypedSampleSpec spec, TypedOwners owners, TypedPartialBatch pb, Iterable<Answer> answers) {
    int hop = pb.hops + 1;
    TypedBatchBuilder b = builder(spec, owners);
    b.resume(pb);
    for (int r = 0; r < owners.numRelations(); r++) {
      int rows = b.rows(r);
      if (rows == 0 || spec.fanouts[r][hop - 1] == 0) {
        b.addEmptyBlock(r);
        continue;
      }
      int dst = owners.dstType[r];
      int[] ptr = new int[rows + 1];
      int[] seen = new int[rows];
      for (Answer a : answers) {
        int k = a.type == dst ? Arrays.binarySearch(a.relations, r) : -1;
        for (int i = 0; k >= 0 && i < a.local.length; i++) {
          ptr[a.local[i] + 1] = a.counts[k][i];
          seen[a.local[i]]++;
        }
      }
      for (int i = 0; i < rows; i++) {
        if (seen[i] != 1) {
          throw new IllegalStateException(
              "batch "
                  + pb.batch
                  + ": node "
                  + pb.blocks.nodes()[dst][i]
                  + " answered "
                  + seen[i]
                  + " times over relation "
                  + r);
        }
        ptr[i + 1] += ptr[i];
      }
      int[] ids = new int[ptr[rows]];
      for (Answer a : answers) {
        int k = a.type == dst ? Arrays.binarySearch(a.relations, r) : -1;
        int o = 0;
        for (int i = 0; k >= 0 && i < a.local.length; i++) {
          System.arraycopy(a.ids[k], o, ids, ptr[a.local[i]], a.counts[k][i]);
          o += a.counts[k][i];
        }
      }
      b.addBlock(r, ptr, ids);
    }
    if (pb.labels != null) {
      return b.snapshot(pb.labels);
    }
    // hop 1 of a node batch: the seed type's owners answered the seeds' labels
    int[] seedNodes = pb.blocks.nodes()[spec.seedType];
    int seeds = seedNodes.length;
    int[] labels = new int[seeds];
    int[] seen = new int[seeds];
    int[] labelPtr = owners.multiLabel[spec.seedType] ? new int[seeds + 1] : null;
    for (Answer a : answers) {
      for (int i = 0; a.labels != null && i < a.local.length; i++) {
        labels[a.local[i]] = a.labels[i];
        seen[a.local[i]]++;
        if (labelPtr != null) {
          labelPtr[a.local[i] + 1] = a.labelCounts[i];
        }
      }
    }
    for (int i = 0; i < seeds; i++) {
      if (seen[i] != 1) {
        throw new IllegalStateException(
            "batch " + pb.batch + ": seed " + seedNodes[i] + " labelled " + seen[i] + " times");
      }
    }
    int[] labelIds = null;
    if (labelPtr != null) {
      for (int i = 0; i < seeds; i++) {
        labelPtr[i + 1] += labelPtr[i];
      }
      labelIds = new int[labelPtr[seeds]];
      for (Answer a : answers) {
        int o = 0;
        for (int i = 0; a.labels != null && i < a.local.length; i++) {
          System.arraycopy(a.labelIds, o, labelIds, labelPtr[a.local[i]], a.labelCounts[i]);
          o += a.labelCounts[i];
        }
      }
    }
    return b.snapshot(new SeedLabels(labels, labelPtr, labelIds));
  }
}
