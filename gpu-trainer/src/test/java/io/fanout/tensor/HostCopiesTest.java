package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import org.junit.jupiter.api.Test;

/** {@link HostCopies}: split copies land exactly where one copy would, small and large. */
class HostCopiesTest {
  @Test
  void floatAndIntCopiesOfEverySizeLandAtTheirIndex() {
    for (int len : new int[] {0, 1, 17, (1 << 20) + 3, 3_000_001}) {
      float[] f = new float[len + 5];
      int[] x = new int[len + 5];
      for (int i = 0; i < f.length; i++) {
        f[i] = CounterRng.uniform(3, i);
        x[i] = (int) (CounterRng.uniform(4, i) * Integer.MAX_VALUE);
      }
      ByteBuffer b = ByteBuffer.allocateDirect(4 * (len + 9)).order(ByteOrder.nativeOrder());
      FloatBuffer fb = b.asFloatBuffer();
      HostCopies.put(fb, 4, f, 5, len);
      for (int i = 0; i < len; i++) {
        assertThat(fb.get(4 + i)).isEqualTo(f[5 + i]);
      }
      IntBuffer ib = b.asIntBuffer();
      HostCopies.put(ib, 9, x, 2, len);
      for (int i = 0; i < len; i++) {
        assertThat(ib.get(9 + i)).isEqualTo(x[2 + i]);
      }
      assertThat(ib.get(0)).isZero(); // nothing before the target range
    }
  }
}
