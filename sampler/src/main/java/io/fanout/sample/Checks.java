package io.fanout.sample;

/** The bounds-check switch: {@code -Dfanout.checks=true} (tests) turns on per-element checks. */
final class Checks {
  private Checks() {}

  static final boolean ON = Boolean.getBoolean("fanout.checks");
}
