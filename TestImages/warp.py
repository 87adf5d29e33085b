"""Drawing helpers shared by the test-image generators."""
import numpy as np
from PIL import Image


def perspective(img, corners, size):
    """`img` seen from an angle: its corners (top-left, top-right, bottom-right, bottom-left) land
    on `corners` of a white picture of `size`."""
    w, h = img.size
    src = [(0, 0), (w, 0), (w, h), (0, h)]
    # The map from the output picture back to the image (what PIL's transform takes).
    a = []
    for (x, y), (u, v) in zip(corners, src):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    coeffs = np.linalg.solve(np.array(a, float), np.array([c for p in src for c in p], float))
    return img.transform(size, Image.PERSPECTIVE, tuple(coeffs), Image.BICUBIC, fillcolor=255)
