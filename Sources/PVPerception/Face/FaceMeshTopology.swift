/// Index tables of the 468-point face mesh (MODELS.md §12.2–12.3). "Right" and "left" are the subject's.
public enum FaceMeshTopology {
    /// Points of the mesh model.
    public static let meshCount = 468
    /// Points after the iris refinement: the mesh plus five per iris (468–472 right, 473–477 left).
    public static let refinedCount = 478

    /// Right eye corners (outer 33, inner 133): the iris ROI of the eye on the image's left in a frontal photo.
    public static let rightEyeCorners = (33, 133)
    /// Left eye corners (inner 362, outer 263).
    public static let leftEyeCorners = (362, 263)

    /// Right iris centre in the refined layout.
    public static let rightIrisCenter = 468
    /// Left iris centre in the refined layout.
    public static let leftIrisCenter = 473

    /// The mesh points the iris model's 71 eye-region outputs replace, in output order, for the right
    /// eye (corners 33 → 133).
    public static let rightEyeRegion: [Int] = [
        33, 7, 163, 144, 145, 153, 154, 155, 133, 246, 161, 160, 159, 158, 157, 173, 130, 25, 110, 24, 23, 22, 26, 112,
        243, 247, 30, 29, 27, 28, 56, 190, 226, 31, 228, 229, 230, 231, 232, 233, 244, 113, 225, 224, 223, 222, 221,
        189, 35, 124, 46, 53, 52, 65, 143, 111, 117, 118, 119, 120, 121, 128, 245, 156, 70, 63, 105, 66, 107, 55, 193,
    ]
    /// As ``rightEyeRegion`` for the left eye (corners 362 → 263).
    public static let leftEyeRegion: [Int] = [
        263, 249, 390, 373, 374, 380, 381, 382, 362, 466, 388, 387, 386, 385, 384, 398, 359, 255, 339, 254, 253, 252,
        256, 341, 463, 467, 260, 259, 257, 258, 286, 414, 446, 261, 448, 449, 450, 451, 452, 453, 464, 342, 445, 444,
        443, 442, 441, 413, 265, 353, 276, 283, 282, 295, 372, 340, 346, 347, 348, 349, 350, 357, 465, 383, 300, 293,
        334, 296, 336, 285, 417,
    ]

    /// The mesh points the attention mesh's 80 lip outputs replace, in output order: outer, inner, semi-outer and
    /// semi-inner rings, each lower (corner to corner) then upper (without the corners).
    public static let lipsRegion: [Int] = [
        61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 185, 40, 39, 37, 0, 267, 269, 270, 409,
        78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 191, 80, 81, 82, 13, 312, 311, 310, 415,
        76, 77, 90, 180, 85, 16, 315, 404, 320, 307, 306, 184, 74, 73, 72, 11, 302, 303, 304, 408,
        62, 96, 89, 179, 86, 15, 316, 403, 319, 325, 292, 183, 42, 41, 38, 12, 268, 271, 272, 407,
    ]

    /// Mirror pairs (right side, left side) used where the two halves of the face are compared.
    static let symmetricPairs: [(Int, Int)] = [
        (33, 263), (133, 362), (159, 386), (145, 374), (70, 300), (105, 334), (107, 336), (61, 291), (78, 308),
        (234, 454), (93, 323), (132, 361), (58, 288), (172, 397), (136, 365), (150, 379), (176, 400), (127, 356),
        (162, 389), (21, 251), (54, 284), (103, 332), (67, 297), (109, 338), (98, 327), (64, 294), (48, 278),
        (115, 344), (220, 440), (45, 275), (97, 326), (149, 378), (148, 377),
    ]
}
