package io.fanout.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Shows progress lines on standard error in a {@link ProgressMode}: in {@link
 * ProgressMode#TERMINAL} one line rewritten in place with {@code \r} (at most once per redraw
 * interval), in {@link ProgressMode#LOG} a plain line at most once per log period (the first one a
 * period after start). A milestone (e.g. an epoch's end) is shown at once in both modes.
 *
 * <p>Thread-safe. Other output meant for the same terminal goes through {@link #lineSafe}, which
 * clears the live line before writing, so that it is not mixed into the text.
 */
final class ProgressRenderer implements AutoCloseable {
  static final long REDRAW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
  static final long LOG_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final PrintStream out;
  private final ProgressMode mode;
  private final LongSupplier clock;
  private final long redrawNanos;
  private final long logPeriodNanos;
  private final int width;
  private long lastShown;
  private boolean drawnOnce;
  private int liveLength;
  private String liveText;

  /**
   * @param clock nanoseconds, as {@link System#nanoTime}
   * @param width the longest line shown; longer ones are cut
   */
  ProgressRenderer(
      PrintStream out,
      ProgressMode mode,
      LongSupplier clock,
      long redrawNanos,
      long logPeriodNanos,
      int width) {
    this.out = out;
    this.mode = mode;
    this.clock = clock;
    this.redrawNanos = redrawNanos;
    this.logPeriodNanos = logPeriodNanos;
    this.width = Math.max(20, width);
    this.lastShown = clock.getAsLong();
  }

  /**
   * A renderer on the real clock, lines fitted to one less than the terminal's width: the {@code
   * fanout.stderr.columns} system property ({@code bin/fanout} sets it), else {@code COLUMNS}, else
   * 80.
   */
  static ProgressRenderer of(PrintStream out, ProgressMode mode) {
    int width = 79;
    for (String columns :
        new String[] {System.getProperty("fanout.stderr.columns"), System.getenv("COLUMNS")}) {
      if (columns != null && columns.trim().matches("[0-9]{2,4}")) {
        width = Integer.parseInt(columns.trim()) - 1;
        break;
      }
    }
    return new ProgressRenderer(out, mode, System::nanoTime, REDRAW_NANOS, LOG_PERIOD_NANOS, width);
  }

  ProgressMode mode() {
    return mode;
  }

  /** The renderer's clock, in nanoseconds. */
  long now() {
    return clock.getAsLong();
  }

  /** Shows {@code line} if the mode's interval has passed since the last one, or if milestone. */
  synchronized void show(String line, boolean milestone) {
    if (mode == ProgressMode.NONE) {
      return;
    }
    long now = clock.getAsLong();
    if (mode == ProgressMode.TERMINAL) {
      if (!milestone && drawnOnce && now - lastShown < redrawNanos) {
        return;
      }
      String text = fit(line, width);
      if (!milestone && liveLength > 0 && text.equals(liveText)) {
        return; // already on screen
      }
      StringBuilder sb = new StringBuilder(width + 2).append('\r').append(text);
      for (int i = text.length(); i < liveLength; i++) {
        sb.append(' ');
      }
      out.print(sb);
      out.flush();
      liveLength = text.length();
      liveText = text;
      drawnOnce = true;
    } else {
      if (!milestone && now - lastShown < logPeriodNanos) {
        return;
      }
      out.println(line);
      out.flush();
    }
    lastShown = now;
  }

  /** Removes the live line (terminal mode), so that the next output starts on a clean line. */
  synchronized void clear() {
    if (liveLength > 0) {
      out.print('\r' + " ".repeat(liveLength) + '\r');
      out.flush();
      liveLength = 0;
    }
  }

  /** A stream onto the same output that clears the live line before each write. */
  PrintStream lineSafe() {
    return lineSafe(out);
  }

  /**
   * A stream onto {@code target} that clears the live line before each write: for standard output
   * when it shares the terminal with standard error.
   */
  PrintStream lineSafe(PrintStream target) {
    OutputStream clearing =
        new OutputStream() {
          @Override
          public void write(int b) {
            synchronized (ProgressRenderer.this) {
              clear();
              target.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            synchronized (ProgressRenderer.this) {
              clear();
              target.write(b, off, len);
            }
          }

          @Override
          public void flush() {
            target.flush();
          }
        };
    return new PrintStream(clearing, true, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    clear();
  }

  /**
   * {@code line} in at most {@code width} characters: a long first part (before {@code " | "}) is
   * shortened so that the figures after it stay visible.
   */
  static String fit(String line, int width) {
    if (line.length() <= width) {
      return line;
    }
    int bar = line.indexOf(" | ");
    if (bar > 0) {
      String figures = line.substring(bar);
      int keep = width - figures.length() - 3;
      if (keep >= 10) {
        return line.substring(0, keep) + "..." + figures;
      }
    }
    return line.substring(0, width);
  }

  /** {@code 42s}, {@code 3m05s}, {@code 1h02m}; {@code ?} when unknown. */
  static String duration(double seconds) {
    if (!(seconds >= 0) || Double.isInfinite(seconds)) {
      return "?";
    }
    long s = Math.round(seconds);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
  }

  /** A rate with one decimal below 100, none above. */
  static String rate(double perSecond) {
    if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
      return "?";
    }
    return String.format(Locale.ROOT, perSecond < 100 ? "%.1f" : "%.0f", perSecond);
  }
}
