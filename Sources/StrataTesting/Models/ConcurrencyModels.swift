import Foundation
import StrataCore

/// One model written by one save of one writer thread.
@Model final class Entry {
    var writer: Int
    var batch: Int
    var sequence: Int

    init(writer: Int, batch: Int, sequence: Int) {
        self.writer = writer
        self.batch = batch
        self.sequence = sequence
    }
}
