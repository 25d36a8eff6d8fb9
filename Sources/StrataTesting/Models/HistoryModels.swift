import Foundation
import StrataCore

// The history models of the conformance suite.

/// A model whose code and place outlive its delete, in history tombstones.
@Model final class Stay {
    @Attribute(.preserveValueOnDeletion) var code: String
    @Attribute(.preserveValueOnDeletion) var place: String?
    var nights: Int

    init(code: String, place: String?, nights: Int) {
        self.code = code
        self.place = place
        self.nights = nights
    }
}
