package io.fanout.spark.internal;

import io.fanout.conf.FanoutConfigException;
import org.apache.spark.sql.SparkSession;

/**
 * Instrumentation seams, each a Spark conf key naming a class on the executors' classpath (unset:
 * none). The class is instantiated where the seam runs, through its public no-argument constructor.
 * Tests use them to inject faults; production runs leave them unset.
 */
public final class Hooks {
  private Hooks() {}

  /** A {@link io.fanout.dist.ReducerDecorator} applied on every distributed-training worker. */
  public static final String REDUCER_DECORATOR = "spark.fanout.hooks.reducer-decorator";

  /** A {@link io.fanout.shard.PartWriteObserver} called for every shard part written. */
  public static final String PART_WRITE_OBSERVER = "spark.fanout.hooks.part-write-observer";

  /**
   * A {@link io.fanout.spark.sample.TypedStoreOpener} that {@code sample} asks whether a store is
   * typed and how to open it (unset: {@link io.fanout.spark.sample.TypedStoreOpener#DEFAULT}).
   */
  public static final String TYPED_STORE_OPENER = "spark.fanout.hooks.typed-store-opener";

  /**
   * A {@link io.fanout.spark.prepare.FreeSpaceProbe} that {@code prepare} asks for the free bytes
   * of the disks it writes to, on the driver.
   */
  public static final String FREE_SPACE_PROBE = "spark.fanout.hooks.free-space-probe";

  /**
   * The class name set for {@code key} in the session's conf, or null; checked here, on the driver,
   * by instantiating it once, so that a wrong name fails before any task runs.
   */
  public static String className(SparkSession spark, String key, Class<?> type) {
    String name = spark.conf().get(key, null);
    if (name == null || name.isBlank()) {
      return null;
    }
    instantiate(key, name.trim(), type);
    return name.trim();
  }

  /**
   * A new instance of {@code className}, which must implement {@code type}.
   *
   * @throws FanoutConfigException naming {@code key} when the class is missing, of another type or
   *     cannot be instantiated
   */
  public static <T> T instantiate(String key, String className, Class<T> type) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = Hooks.class.getClassLoader();
    }
    Class<?> c;
    try {
      c = Class.forName(className, true, loader);
    } catch (ClassNotFoundException e) {
      throw new FanoutConfigException(
          key + " names class '" + className + "', which is not on the classpath", e);
    }
    if (!type.isAssignableFrom(c)) {
      throw new FanoutConfigException(
          key
              + " names class '"
              + className
              + "', expected an implementation of "
              + type.getName());
    }
    try {
      return type.cast(c.getDeclaredConstructor().newInstance());
    } catch (ReflectiveOperationException e) {
      throw new FanoutConfigException(
          key + " names class '" + className + "', which has no public no-argument constructor", e);
    }
  }
}
