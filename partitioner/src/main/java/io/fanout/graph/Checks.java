package io.fanout.graph;

/** The bounds-check switch of the readers: {@code -Dfanout.checks=true} turns checks on. */
final class Checks {
  private Checks() {}

  static final boolean ENABLED = Boolean.getBoolean("fanout.checks");
}
