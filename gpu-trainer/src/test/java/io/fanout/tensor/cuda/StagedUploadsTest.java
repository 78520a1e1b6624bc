package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Uploads through the pinned staging regions arrive intact, including groups larger than a region
 * (which then grows) and a tensor rewritten while the previous batch's work still reads it; each
 * group between read-backs is measured. Skipped, with the reason printed, without a device.
 */
@Tag("gpu")
class StagedUploadsTest {
  @Test
  void batchesArriveIntactAndAreMeasured() {
    GpuTests.assumeDevice();
    int n = 3 << 20; // 12 MiB of floats: more than a region holds at first
    float[] host = new float[n];
    int[] ints = new int[1000];
    try (CudaBackend be = new CudaBackend(-1)) {
      be.resetTransferStats();
      try (FloatTensor x = be.allocFloat(n);
          FloatTensor y = be.allocFloat(n);
          IntTensor t = be.allocInt(ints.length)) {
        for (int batch = 0; batch < 7; batch++) {
          for (int i = 0; i < n; i++) {
            host[i] = batch * 1000f + (i & 1023);
          }
          for (int i = 0; i < ints.length; i++) {
            ints[i] = batch + i;
          }
          be.upload(ints, 0, t, 0, ints.length);
          be.upload(host, 0, x, 0, n);
          // the "step": y = 2 x, queued behind the upload; then the next batch rewrites x
          be.copy(x, 0, y, 0, n);
          be.scale(n, 2f, y, 0);
          float[] back = new float[n];
          be.download(y, 0, back, 0, n);
          int[] backInts = new int[ints.length];
          be.download(t, 0, backInts, 0, ints.length);
          for (int i = 0; i < n; i += 4099) {
            assertThat(back[i]).isEqualTo(2 * host[i]);
          }
          assertThat(backInts).containsExactly(ints);
        }
        OverlapStats s = be.transferStats();
        System.out.println("staged uploads: " + s);
        assertThat(s.groups()).isEqualTo(7);
        assertThat(s.copyMs()).isPositive();
      }
      be.pool().checkNoLeaks();
    }
  }
}
