package io.fanout.tensor.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/** Builds the parameter array of a {@code cuLaunchKernel} call, argument by argument. */
final class KernelArgs {
  private final List<NativePointerObject> args = new ArrayList<>(12);

  KernelArgs i(int v) {
    args.add(Pointer.to(new int[] {v}));
    return this;
  }

  KernelArgs l(long v) {
    args.add(Pointer.to(new long[] {v}));
    return this;
  }

  KernelArgs f(float v) {
    args.add(Pointer.to(new float[] {v}));
    return this;
  }

  /** A device pointer argument; {@code null} passes a null pointer. */
  KernelArgs p(Pointer devicePointer) {
    args.add(devicePointer == null ? Pointer.to(new long[] {0L}) : Pointer.to(devicePointer));
    return this;
  }

  Pointer build() {
    return Pointer.to(args.toArray(new NativePointerObject[0]));
  }
}
