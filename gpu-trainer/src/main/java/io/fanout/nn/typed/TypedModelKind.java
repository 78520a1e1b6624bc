package io.fanout.nn.typed;

import io.fanout.store.EnumSpellings;

/** The relation-aware architectures of typed graphs ({@code train --model} on a typed store). */
public enum TypedModelKind {
  /**
   * R-GCN: {@code h_i' = W_0 h_i + b + sum_r mean_{j in N_r(i)} h_j W_r}, one self weight shared by
   * all types, one weight per relation (optionally from shared bases).
   */
  RGCN("rgcn"),
  /**
   * Heterogeneous GraphSAGE: {@code h_i' = h_i W_self[type(i)] + b[type(i)] + (1/|R(i)|) sum_r
   * mean_{j in N_r(i)} h_j W_r}, where {@code R(i)} are the relations into {@code i}'s type.
   */
  HSAGE("hsage"),
  /**
   * Simple-HGN (Lv et al., KDD 2021): multi-head attention over every in-edge of every relation and
   * a self loop, with learned relation-type embeddings in the scores, residual connections, ELU
   * between layers and L2-normalised outputs ({@link HgnLayer}).
   */
  HGN("hgn");

  private final String id;

  TypedModelKind(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  /** The typed architecture of a {@code --model} value. */
  public static TypedModelKind of(io.fanout.nn.ModelKind kind) {
    return switch (kind) {
      case RGCN -> RGCN;
      case HSAGE -> HSAGE;
      case HGN -> HGN;
      default ->
          throw new io.fanout.store.InvalidInputException(
              "--model "
                  + kind.id()
                  + " is not built for typed graph stores; use rgcn, hsage or hgn");
    };
  }

  /** The value spelled {@code raw}, case-insensitively. */
  public static TypedModelKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), TypedModelKind::id);
  }
}
