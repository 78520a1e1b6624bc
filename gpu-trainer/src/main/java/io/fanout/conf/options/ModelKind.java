package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The GNN architecture {@code train --model} names. */
public enum ModelKind implements OptionEnum {
  SAGE("sage"),
  GCN("gcn");

  private final String id;

  ModelKind(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ModelKind parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
