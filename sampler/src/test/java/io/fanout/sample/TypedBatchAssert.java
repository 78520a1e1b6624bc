package io.fanout.sample;

/** Test access to the typed batch comparison of {@link TypedNeighborSamplerTest}. */
public final class TypedBatchAssert {
  private TypedBatchAssert() {}

  public static void assertSame(TypedMiniBatch got, TypedMiniBatch want) {
    TypedNeighborSamplerTest.assertSame(got, want);
  }
}
