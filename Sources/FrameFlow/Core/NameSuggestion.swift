/// The candidate closest to `word` by edit distance over lower-cased UTF-8 bytes, when it is
/// close enough to be a typo: at most a third of the word's length, and at least
/// `minimumDistance`. A word or candidate longer than `maxLength` bytes gets none, and a
/// candidate whose length alone rules it out is skipped, so hostile input cannot make this
/// slow. What every "did you mean …?" in FrameFlow answers with (graph files, the registry,
/// command-line options and stream names).
public func nearestName(
    to word: String, in candidates: some Sequence<String>, minimumDistance: Int = 3, maxLength: Int = 256
) -> String? {
    let w = Array(word.lowercased().utf8)
    guard w.count <= maxLength else { return nil }
    let limit = max(minimumDistance, word.count / 3)
    var previous: [Int] = [], current: [Int] = []
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let c = Array(candidate.lowercased().utf8)
        guard c.count <= maxLength, abs(c.count - w.count) <= limit else { continue }
        previous = Array(0...c.count)
        current = Array(repeating: 0, count: c.count + 1)
        for i in stride(from: 1, through: w.count, by: 1) {
            current[0] = i
            for j in stride(from: 1, through: c.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (w[i - 1] == c[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        let d = previous[c.count]
        if d <= limit, d < best?.distance ?? Int.max { best = (candidate, d) }
    }
    return best?.candidate
}
