package io.fanout.spark.ml;

import java.io.Serializable;
import java.util.Arrays;
import scala.runtime.AbstractFunction1;

/**
 * A Param's validator that refuses a bad value with a message in the API's own terms ({@code
 * GnnClassifier param hidden has value 0; expected 1 or more}) instead of Spark's generic "given
 * invalid value": it throws where a {@code ParamValidators} function would return false.
 *
 * @param <T> the Param's value type ({@code Object} for the boxed numeric Params)
 */
final class ParamCheck<T> extends AbstractFunction1<T, Object> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A rule on a value: returns normally when it holds, else throws saying what was expected. */
  @FunctionalInterface
  interface Rule<T> extends Serializable {
    void check(T value);
  }

  private final String owner;
  private final String param;
  private final Rule<T> rule;

  ParamCheck(String owner, String param, Rule<T> rule) {
    this.owner = owner;
    this.param = param;
    this.rule = rule;
  }

  @Override
  public Object apply(T value) {
    try {
      if (value == null) {
        throw new IllegalArgumentException("expected a value");
      }
      rule.check(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          owner + " param " + param + " has value " + show(value) + "; " + e.getMessage(), e);
    }
    return Boolean.TRUE;
  }

  private static String show(Object value) {
    if (value instanceof int[] a) {
      return Arrays.toString(a);
    }
    return value instanceof String ? "'" + value + "'" : String.valueOf(value);
  }

  /** An integer of at least {@code min}. */
  static Rule<Object> atLeast(int min) {
    return v -> {
      if (((Number) v).intValue() < min) {
        throw new IllegalArgumentException("expected " + min + " or more");
      }
    };
  }

  /** A number in {@code [0, 1)}. */
  static Rule<Object> fraction() {
    return v -> {
      double d = ((Number) v).doubleValue();
      if (!(d >= 0 && d < 1)) {
        throw new IllegalArgumentException("expected 0 <= value < 1");
      }
    };
  }

  /** A finite number above 0. */
  static Rule<Object> positive() {
    return v -> {
      double d = ((Number) v).doubleValue();
      if (!(d > 0) || Double.isInfinite(d)) {
        throw new IllegalArgumentException("expected a finite number above 0");
      }
    };
  }

  /** A finite number of 0 or more. */
  static Rule<Object> nonNegative() {
    return v -> {
      double d = ((Number) v).doubleValue();
      if (!(d >= 0) || Double.isInfinite(d)) {
        throw new IllegalArgumentException("expected a finite number of 0 or more");
      }
    };
  }

  /** A non-blank column name. */
  static Rule<String> column() {
    return v -> {
      if (v.isBlank()) {
        throw new IllegalArgumentException("expected a column name");
      }
    };
  }

  /**
   * Blank, or {@code TRAIN,VAL,TEST}: three fractions of 0 or more summing to 1, the first above 0.
   */
  static Rule<String> edgeSplit() {
    return v -> {
      if (v.isBlank()) {
        return;
      }
      String[] parts = v.split(",", -1);
      String expected = "expected TRAIN,VAL,TEST fractions >= 0 summing to 1, TRAIN above 0";
      if (parts.length != 3) {
        throw new IllegalArgumentException(expected);
      }
      double sum = 0;
      double[] f = new double[3];
      for (int i = 0; i < 3; i++) {
        try {
          f[i] = Double.parseDouble(parts[i].trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(expected);
        }
        if (!(f[i] >= 0) || Double.isInfinite(f[i])) {
          throw new IllegalArgumentException(expected);
        }
        sum += f[i];
      }
      if (!(f[0] > 0) || Math.abs(sum - 1) > 1e-6) {
        throw new IllegalArgumentException(expected);
      }
    };
  }

  /** Any string, blank included. */
  static Rule<String> anyText() {
    return v -> {};
  }
}
