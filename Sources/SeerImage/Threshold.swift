/// Global thresholds shared by the recognisers.
public enum Threshold {
    /// Otsu's threshold over `pixels`: the grey level that best separates the histogram into two
    /// classes (samples at or below it are the dark class). 128 when the samples are uniform.
    public static func otsu(_ pixels: [UInt8]) -> Int {
        var hist = [Int](repeating: 0, count: 256)
        pixels.withUnsafeBufferPointer { p in
            hist.withUnsafeMutableBufferPointer { h in
                for v in p { h[Int(v)] &+= 1 }
            }
        }
        let total = Double(pixels.count)
        var sumAll = 0.0
        for i in 0..<256 { sumAll += Double(i * hist[i]) }
        var sumB = 0.0, wB = 0.0, best = 0.0, threshold = 128
        for t in 0..<256 {
            wB += Double(hist[t])
            if wB == 0 { continue }
            let wF = total - wB
            if wF == 0 { break }
            sumB += Double(t * hist[t])
            let mB = sumB / wB, mF = (sumAll - sumB) / wF
            let between = wB * wF * (mB - mF) * (mB - mF)
            if between > best { best = between; threshold = t }
        }
        return threshold
    }
}
