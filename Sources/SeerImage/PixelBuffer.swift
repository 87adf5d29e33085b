#if canImport(Glibc)
import Glibc
#endif

enum PixelBuffer {
    /// Below this, ordinary pages are as cheap as any.
    static let hugePageThreshold = 4 << 20

    /// An uninitialised byte array of `count` bytes that `fill` must initialise completely.
    ///
    /// A 12-megapixel photo's buffer spans about 3 000 pages of 4 KiB, and a new process pays a page
    /// fault for each on first touch. For large buffers on Linux the 2 MiB-aligned interior is marked
    /// for transparent huge pages before the decoder writes to it, which turns thousands of faults
    /// into a handful. Where the kernel does not allow it, nothing changes.
    static func make(count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            #if os(Linux)
            if count >= hugePageThreshold, let base = buffer.baseAddress {
                let huge = 2 << 20
                let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
                let end = (Int(bitPattern: base) + count) & ~(huge - 1)
                if end > start {
                    _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, 14 /* MADV_HUGEPAGE */)
                }
            }
            #endif
            try fill(buffer)
            initialized = count
        }
    }
}
