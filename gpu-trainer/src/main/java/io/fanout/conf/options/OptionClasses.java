package io.fanout.conf.options;

import io.fanout.conf.SharedOptions;
import java.util.List;

/** Every class that defines options, for checks over all of them (one definition per name). */
public final class OptionClasses {
  private OptionClasses() {}

  public static final List<Class<?>> ALL =
      List.of(
          SharedOptions.class,
          PrepareOptions.class,
          QuantizeOptions.class,
          QuantizeCommandOptions.class,
          SampleOptions.class,
          TrainCommandOptions.class,
          DistOptions.class,
          EvaluateOptions.class,
          InferOptions.class,
          GenerateOptions.class,
          InspectOptions.class,
          QuickstartOptions.class,
          BenchAllReduceOptions.class,
          BenchCacheOptions.class,
          BenchOutOfCoreOptions.class,
          BenchFeaturesOptions.class,
          BenchPartitionOptions.class,
          BenchPrepareOptions.class,
          BenchSampleOptions.class,
          BenchTrainOptions.class);
}
