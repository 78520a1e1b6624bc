package io.fanout.conf;

/**
 * What a store, shards or a model are for: node classification or link prediction ({@code --task}).
 */
public enum Task implements OptionEnum {
  NODE("node"),
  LINK("link");

  private final String id;

  Task(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static Task parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
