// A 3x3 box blur of a width x height r32_uint image, read and written through surfaces:
// each pixel becomes the mean (rounded down) of the pixels of its 3x3 neighbourhood that lie
// inside the image.
extern "C" __global__ void blur(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int width,
                                int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  unsigned sum = 0, count = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int nx = x + dx, ny = y + dy;
      if (nx >= 0 && nx < width && ny >= 0 && ny < height) {
        sum += surf2Dread<unsigned>(in, nx * 4, ny);
        count++;
      }
    }
  surf2Dwrite(sum / count, out, x * 4, y);
}
