import Benchmark
#if canImport(Glibc)
import Glibc
#endif
import SeerImage

/// Photos to decode: a 12-megapixel JPEG as a phone writes it and a large PNG, made by
/// `Benchmarks/make-photos.sh` into `SEER_BENCH_DIR` (default /tmp/seer-bench).
let folder: String = {
    if let dir = getenv("SEER_BENCH_DIR") { return String(cString: dir) }
    return "/tmp/seer-bench"
}()

func load(_ name: String) -> [UInt8]? {
    try? ImageDecoder.readFile("\(folder)/\(name)")
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 2,
        maxDuration: .seconds(5),
        maxIterations: 60
    )

    guard let jpeg = load("photo-12mp.jpg"), let png = load("photo-12mp.png") else {
        print("No benchmark photos in \(folder): run Benchmarks/make-photos.sh first.")
        return
    }

    for scale in [1, 2, 4, 8] {
        Benchmark("JPEG 12 MP to grey, scale 1/\(scale)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageDecoder.decode(jpeg, options: DecodeOptions(scale: scale)))
            }
        }
    }

    Benchmark("JPEG 12 MP to grey and RGB") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder.decode(jpeg, options: DecodeOptions(includeRGB: true)))
        }
    }

    Benchmark("JPEG 12 MP to grey, fast IDCT") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder.decode(jpeg, options: DecodeOptions(fastDCT: true)))
        }
    }

    Benchmark("PNG 12 MP RGB to grey") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder.decode(png))
        }
    }

    let gray = try! ImageDecoder.decode(jpeg).gray
    Benchmark("Area downscale 12 MP by 4") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(gray.downscaled(by: 4)) }
    }
    Benchmark("Rotate 12 MP grey 90°") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(gray.rotatedClockwise()) }
    }
}
