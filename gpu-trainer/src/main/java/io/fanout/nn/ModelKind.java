package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/** The GNN architecture {@code train --model} names. */
public enum ModelKind {
  SAGE("sage"),
  GCN("gcn"),
  /** Graph attention (GAT): multi-head attention over the neighbors and the node itself. */
  GAT("gat"),
  /** R-GCN, relation weights with optional bases: typed graph stores only. */
  RGCN("rgcn"),
  /** Heterogeneous GraphSAGE, per-relation means and a per-type self term: typed stores only. */
  HSAGE("hsage"),
  /** Simple-HGN: attention with relation-type embeddings, residuals, L2-normalised outputs. */
  HGN("hgn");

  private final String id;

  ModelKind(String id) {
    this.id = id;
  }

  /** Whether this architecture trains typed (heterogeneous) graph stores only. */
  public boolean typed() {
    return this == RGCN || this == HSAGE || this == HGN;
  }

  /** The spelling of this value in options, checkpoints and messages. */
  public String id() {
    return id;
  }

  /**
   * The value spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  public static ModelKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), ModelKind::id);
  }
}
