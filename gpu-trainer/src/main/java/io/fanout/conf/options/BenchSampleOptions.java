package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import java.util.List;

/** The options of {@code bin/fanout bench-sample}. */
public final class BenchSampleOptions {
  private BenchSampleOptions() {}

  public static final OptionDef<String> GRAPH =
      SharedOptions.GRAPH.withDefault(
          "",
          "graph store to sample; empty = an in-memory power-law graph. A typed store (e.g. of"
              + " generate --types) times the typed sampler against the one-type sampler on its"
              + " edges merged into one type, both copied onto the heap");
  public static final OptionDef<Long> NUM_VERTICES =
      SharedOptions.NUM_VERTICES.withDefault("2500000", "vertices of the generated graph");
  public static final OptionDef<Long> NUM_EDGES =
      SharedOptions.NUM_EDGES.withDefault("60000000", "edges of the generated graph");
  public static final OptionDef<String> FANOUTS =
      SharedOptions.FANOUTS.withDefault("15,10,5", "per-hop fanouts, hop 1 first; -1 = all");
  public static final OptionDef<Integer> BATCH_SIZE =
      SharedOptions.BATCH_SIZE.withDefault("1024", "seeds per batch");
  public static final OptionDef<Integer> BATCHES =
      SharedOptions.BATCHES.withDefault("60", "batches timed per thread count");
  public static final OptionDef<Integer> SHARD_BATCHES =
      OptionDef.integer("shard-batches", 20, "batches written and read per shard encoding");
  public static final OptionDef<Long> SEED = SharedOptions.SEED.withDefault("1", "random seed");
  public static final OptionDef<Integer> MAPPED_PARTITIONS =
      OptionDef.integer(
          "mapped-partitions",
          0,
          "write the generated graph as a store of this many partitions under --work-dir and sample"
              + " it memory-mapped; 0 = sample the in-memory arrays");
  public static final OptionDef<Integer> REPEAT =
      OptionDef.integer(
          "repeat",
          3,
          "timed rounds of each measurement, the samplers alternating; the best is reported"
              + " (shared hosts), every round under *_per_round");
  public static final OptionDef<Integer> RANDOM_READ_MIB =
      OptionDef.integer(
          "random-read-mib",
          1024,
          "MiB of the plain int table whose random 4-byte reads are the limit the samplers are"
              + " reported against (random_reads_per_s); a power of two up to 2048, larger than"
              + " the caches; each thread reads it 50 M times per GiB, at least 1 M");
  public static final OptionDef<Boolean> WEIGHTED =
      SharedOptions.WEIGHTED.withDefault(
          "false",
          "also time weighted sampling (sample --weighted) on the same seeds: generated graphs get"
              + " synthetic weights (one in eight zero), a --graph store needs its own");
  public static final OptionDef<Integer> TYPES =
      OptionDef.integer(
          "num-types",
          0,
          "also time the typed sampler on a generated typed graph of this many vertex types (2 per"
              + " type: a self relation and one from the next type) with the same vertices and"
              + " edges, every relation sampling --fanouts, seeds of the first type; 0 = one-type"
              + " only");
  public static final OptionDef<String> TYPED_FANOUTS =
      OptionDef.string(
          "typed-fanouts",
          "",
          "--num-types or a typed --graph: the typed sampler's fanouts, per relation ('t0_t0=8,5,3;*=7,5,2') or one list"
              + " for every relation; empty = --fanouts for every relation");
  public static final OptionDef<String> WORK_DIR =
      SharedOptions.WORK_DIR.withDefault(
          "", "where shard files are written; empty = a temp directory");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          GRAPH,
          NUM_VERTICES,
          NUM_EDGES,
          FANOUTS,
          BATCH_SIZE,
          BATCHES,
          SHARD_BATCHES,
          SEED,
          MAPPED_PARTITIONS,
          REPEAT,
          RANDOM_READ_MIB,
          WEIGHTED,
          TYPES,
          TYPED_FANOUTS,
          WORK_DIR);
}
