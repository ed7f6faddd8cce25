// 8-bit RGB PNG output through libpng. Values are clamped to [0, 1] and encoded with the sRGB transfer
// curve (the renderer works in linear light; a viewer expects sRGB).
#include <png.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "swath/core/error.hpp"
#include "swath/raytracer.hpp"

namespace swath::raytracer {
namespace {

std::uint8_t encode_srgb(float linear) {
  const float c = std::fmin(std::fmax(linear, 0.0f), 1.0f);
  const float encoded = c <= 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
  return static_cast<std::uint8_t>(std::lround(encoded * 255.0f));
}

// libpng reports errors by longjmp; nothing between setjmp and the jump may need a destructor, so the
// libpng calls live in this C-style function, and the caller turns its message into an exception.
struct png_message {
  char text[256];
};

void record_error(png_structp png, png_const_charp message) {
  auto* out = static_cast<png_message*>(png_get_error_ptr(png));
  std::snprintf(out->text, sizeof out->text, "%s", message);
  png_longjmp(png, 1);
}

bool write_rgb_rows(std::FILE* file, const std::uint8_t* rows, int width, int height, png_message* message) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, record_error, nullptr);
  if (png == nullptr) {
    std::snprintf(message->text, sizeof message->text, "png_create_write_struct failed");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    if (info == nullptr) std::snprintf(message->text, sizeof message->text, "png_create_info_struct failed");
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y) png_write_row(png, rows + static_cast<std::size_t>(y) * static_cast<std::size_t>(width) * 3);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

void write_png(const std::string& path, std::span<const rgba> pixels, int width, int height) {
  SWATH_EXPECTS(width > 0 && height > 0 && pixels.size() == static_cast<std::size_t>(width) * static_cast<std::size_t>(height),
                "write_png: width · height pixels");
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    rows[3 * i] = encode_srgb(pixels[i].r);
    rows[3 * i + 1] = encode_srgb(pixels[i].g);
    rows[3 * i + 2] = encode_srgb(pixels[i].b);
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw usage_error("cannot write " + path + ": " + std::strerror(errno));
  png_message message{};
  const bool written = write_rgb_rows(file, rows.data(), width, height, &message);
  const bool closed = std::fclose(file) == 0;
  if (!written) throw error("writing " + path + ": libpng: " + message.text);
  if (!closed) throw error("writing " + path + ": " + std::strerror(errno));
}

}  // namespace swath::raytracer
