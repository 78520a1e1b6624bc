package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.FloatTensor;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Batches staged through the ring's pinned buffers arrive intact on the compute stream in order,
 * and the timeline yields overlap figures. Skipped, with the reason printed, without a device.
 */
@Tag("gpu")
class TransferRingTest {
  @Test
  void batchesArriveIntactThroughRotatingSlots() throws InterruptedException {
    GpuTests.assumeDevice();
    int floats = 1 << 20;
    int batches = 8;
    try (CudaBackend be = new CudaBackend(-1)) {
      float[] sums = new float[batches];
      try (TransferRing ring = new TransferRing(be.context(), be.stream(), 3, 4L * floats);
          FloatTensor acc = be.allocFloat(floats)) {
        for (int b = 0; b < batches; b++) {
          TransferRing.Slot s = ring.acquire(b);
          FloatBuffer f = s.host().floats();
          for (int i = 0; i < floats; i++) {
            f.put(i, b + 1);
          }
          ring.submit(s, 4L * floats);
          ring.beginCompute(s);
          // a step that reads the slot: acc = slot contents, then scaled
          be.copyFromDevice(s.device(), acc, floats);
          be.scale(floats, 2f, acc, 0);
          float[] h = new float[1];
          be.download(acc, floats - 1, h, 0, 1);
          sums[b] = h[0];
          ring.endCompute(s);
        }
        ring.drain();
        OverlapStats st = ring.stats();
        System.out.println("transfer ring: " + st);
        assertThat(st.batches()).isEqualTo(batches);
        assertThat(st.hiddenShare()).isBetween(0.0, 1.0);
      }
      for (int b = 0; b < batches; b++) {
        assertThat(sums[b]).isEqualTo(2f * (b + 1));
      }
      be.pool().checkNoLeaks();
    }
  }
}
