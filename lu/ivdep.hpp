#pragma once
// NPBLU_IVDEP before a loop: its iterations carry no dependence through
// memory, so the compiler may vectorise it even where it cannot prove the
// pointers apart (a runtime stride). Each compiler spells it its own way.
#if defined(__clang__)
#define NPBLU_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define NPBLU_IVDEP _Pragma("GCC ivdep")
#else
#define NPBLU_IVDEP
#endif
