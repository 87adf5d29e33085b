import SeerImage
import Testing

@Suite("Annotation drawing")
struct DrawingTests {
    @Test("lines, polygons and text change the right pixels")
    func drawing() {
        var image = RGBImage(GrayImage(width: 40, height: 30, fill: 255))
        image.drawLine(from: (2, 2), to: (30, 2), color: (255, 0, 0))
        #expect(image[2, 2] == (255, 0, 0) && image[30, 2] == (255, 0, 0))
        #expect(image[31, 2] == (255, 255, 255))
        image.drawPolygon([(5, 10), (15, 10), (15, 20), (5, 20)], color: (0, 255, 0))
        #expect(image[15, 15] == (0, 255, 0) && image[10, 15] == (255, 255, 255))
        var text = RGBImage(GrayImage(width: 20, height: 10, fill: 255))
        text.drawText("1", x: 1, y: 1, color: (0, 0, 255))
        // "1" is 010/110/010/010/111: the top row's middle pixel is set, its left one is not.
        #expect(text[2, 1] == (0, 0, 255) && text[1, 1] == (255, 255, 255))
        // Drawing off the image is ignored.
        text.drawLine(from: (-50, -50), to: (100, 100), color: (0, 0, 0), thickness: 3)
    }
}
