# An alternative build of the same addon with node-gyp (npm install uses
# cmake-js and CMakeLists.txt). It links the same third-party inputs that
# scripts/fetch-native-deps.sh prepared, and builds espeak-ng with the same
# script as CMake does. FFmpeg contributes headers only (libavcodec is
# dlopen'd at run time). test/slow/node-gyp-build.slow.ts proves it.
{
  "targets": [
    {
      "target_name": "espeak_ng_static",
      "type": "none",
      "actions": [
        {
          "action_name": "build_espeak_ng",
          "inputs": ["scripts/build-espeak.sh"],
          "outputs": ["<(module_root_dir)/build/espeak-ng/src/libespeak-ng/libespeak-ng.a"],
          "action": ["bash", "<(module_root_dir)/scripts/build-espeak.sh", "<(module_root_dir)/build/espeak-ng"]
        }
      ]
    },
    {
      "target_name": "lame_static",
      "type": "none",
      "actions": [
        {
          "action_name": "build_lame",
          "inputs": ["scripts/build-lame.sh"],
          "outputs": ["<(module_root_dir)/build/lame/libmp3lame/.libs/libmp3lame.a"],
          "action": ["bash", "<(module_root_dir)/scripts/build-lame.sh", "<(module_root_dir)/build/lame"]
        }
      ]
    },
    {
      "target_name": "chorus_native",
      "dependencies": ["espeak_ng_static", "lame_static"],
      "sources": ["<!@(ls -1 native/*.cc)"],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "native/third_party/espeak-ng/src/include",
        "native/third_party/lame/include"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": [
        "-std=c++17", "-fexceptions", "-fvisibility=hidden", "-Wall", "-Wextra",
        "-isystem", "<(module_root_dir)/native/third_party/onnxruntime/include",
        "-isystem", "<(module_root_dir)/native/third_party/ffmpeg/include"
      ],
      "libraries": [
        "<(module_root_dir)/build/espeak-ng/src/libespeak-ng/libespeak-ng.a",
        "<(module_root_dir)/build/espeak-ng/src/ucd-tools/libucd.a",
        "<(module_root_dir)/build/lame/libmp3lame/.libs/libmp3lame.a",
        "-ldl", "-lpthread", "-lm",
        "-Wl,--exclude-libs,ALL"
      ]
    }
  ]
}
