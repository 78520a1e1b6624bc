package io.fanout.tensor.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * Builds the parameter array of a {@code cuLaunchKernel} call, argument by argument, and records
 * its signature in {@link PtxModules#signature} notation (i = 32-bit int, f = float, q = 64-bit
 * integer or pointer) so a launch can be checked against the kernel's PTX parameters.
 */
final class KernelArgs {
  private final List<NativePointerObject> args = new ArrayList<>(12);
  private final StringBuilder signature = new StringBuilder(12);

  KernelArgs i(int v) {
    args.add(Pointer.to(new int[] {v}));
    signature.append('i');
    return this;
  }

  KernelArgs l(long v) {
    args.add(Pointer.to(new long[] {v}));
    signature.append('q');
    return this;
  }

  KernelArgs f(float v) {
    args.add(Pointer.to(new float[] {v}));
    signature.append('f');
    return this;
  }

  /** A device pointer argument; {@code null} passes a null pointer. */
  KernelArgs p(Pointer devicePointer) {
    args.add(devicePointer == null ? Pointer.to(new long[] {0L}) : Pointer.to(devicePointer));
    signature.append('q');
    return this;
  }

  String signature() {
    return signature.toString();
  }

  Pointer build() {
    return Pointer.to(args.toArray(new NativePointerObject[0]));
  }
}
