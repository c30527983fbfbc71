# txc: `make` builds the programs into bin/; `make check` runs every test,
# then builds with AddressSanitizer and UndefinedBehaviorSanitizer into
# build-san/ and runs every test again. `make fuzz` (not part of check)
# builds the programs for AFL++ into build-fuzz/ and fuzzes each of them.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
SAN     ?= 0

ifeq ($(FUZZ),1)
# The programs as AFL++ runs them (make fuzz): instrumented for coverage by
# afl-clang-fast, with AddressSanitizer, and UBSan trapping on the first error.
BUILD   := build-fuzz
BIN     := build-fuzz/bin
override CC     := afl-clang-fast
override CFLAGS := -O2 -g -fno-omit-frame-pointer
export AFL_USE_ASAN := 1
export AFL_USE_UBSAN := 1
export AFL_QUIET := 1
else ifeq ($(SAN),1)
BUILD   := build-san
BIN     := build-san/bin
CFLAGS  += -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build
BIN     := bin
endif

CPPFLAGS += -D_POSIX_C_SOURCE=200809L -Iir -Ivariants -Ifrontend -Ipasses -I$(BUILD)/gen

LIB_SRC := $(wildcard ir/*.c variants/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/parse.o $(BUILD)/gen/lex.o
LIB     := $(BUILD)/libtxir.a

# The programs; those whose main file is not written yet are left out.
PASSES  := $(patsubst passes/%.c,$(BIN)/%,$(wildcard passes/txc-*.c))
MAYBE   := $(if $(wildcard tools/txc-layout.c),$(BIN)/txc-layout) \
           $(if $(wildcard backend/txc-cuda.c),$(BIN)/txc-cuda) \
           $(if $(wildcard backend/txc-ptx.c),$(BIN)/txc-ptx) \
           $(if $(wildcard runtime/txc-emu.c),$(BIN)/txc-emu) \
           $(if $(wildcard runtime/txc-run.c),$(BIN)/txc-run)
PROGS   := $(BIN)/txc-parse $(BIN)/txc $(BIN)/txc-unittest $(PASSES) $(MAYBE)

# The passes and backends again, without their main (-DTXC_CHAIN), for the
# driver's in-process chain (passes/chain.h).
CHAIN_OBJ := $(patsubst %.c,$(BUILD)/chain/%.o,$(wildcard passes/txc-*.c) \
             $(wildcard backend/txc-cuda.c backend/txc-ptx.c)) $(BUILD)/backend/lowered.o

# The runtime library (emulator, .npy files) that txc-emu and txc-run share.
RT_SRC  := $(filter-out runtime/txc-%.c,$(wildcard runtime/*.c))
RT_OBJ  := $(RT_SRC:%.c=$(BUILD)/%.o)
RT      := $(BUILD)/libtxrt.a

# txc-run loads libcuda with dlopen, so it builds without a GPU; it needs
# only the CUDA Toolkit's cuda.h.
CUDA    ?= /usr/local/cuda
UNIT_SRC := $(wildcard tests/unit/*.c)

all: $(PROGS)

$(BUILD)/gen/parse.c $(BUILD)/gen/parse.h: frontend/parse.y
	@mkdir -p $(@D)
	bison -Wall -Werror --defines=$(BUILD)/gen/parse.h -o $(BUILD)/gen/parse.c $<

$(BUILD)/gen/lex.c: frontend/lex.l
	@mkdir -p $(@D)
	flex -o $@ $<

# Generated code: the only warnings relaxed are those flex's skeleton trips.
$(BUILD)/gen/lex.o: $(BUILD)/gen/lex.c $(BUILD)/gen/parse.h frontend/lexer.h ir/ir.h
	$(CC) $(WARN) -Wno-sign-compare -Wno-unused-function $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/parse.o: $(BUILD)/gen/parse.c frontend/lexer.h ir/ir.h
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c $(wildcard ir/*.h ir/*.def variants/*.h runtime/*.h frontend/*.h backend/*.h backend/*.def passes/*.h) $(BUILD)/gen/parse.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/chain/%.o: %.c $(wildcard ir/*.h ir/*.def variants/*.h frontend/*.h backend/*.h backend/*.def passes/*.h) $(BUILD)/gen/parse.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) -DTXC_CHAIN $(CFLAGS) -c -o $@ $<

$(BUILD)/runtime/txc-run.o: runtime/txc-run.c $(wildcard ir/*.h ir/*.def runtime/*.h variants/*.h) $(BUILD)/gen/parse.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) -I$(CUDA)/include $(CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BIN)/txc-parse: $(BUILD)/frontend/txc-parse.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

$(BIN)/txc-layout: $(BUILD)/tools/txc-layout.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

$(BIN)/txc-%: $(BUILD)/passes/txc-%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

$(BIN)/txc-cuda: $(BUILD)/backend/txc-cuda.o $(BUILD)/backend/lowered.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

$(BIN)/txc-ptx: $(BUILD)/backend/txc-ptx.o $(BUILD)/backend/lowered.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

$(RT): $(RT_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BIN)/txc-emu: $(BUILD)/runtime/txc-emu.o $(RT) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lm -lpthread

$(BIN)/txc-run: $(BUILD)/runtime/txc-run.o $(RT) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl -lm -lpthread

$(BIN)/txc: $(BUILD)/driver/txc.o $(CHAIN_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

$(BIN)/txc-unittest: $(UNIT_SRC:%.c=$(BUILD)/%.o) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -lm -lpthread

# make install [PREFIX=/usr/local] [DESTDIR=]: the programs (txc finds the
# passes next to itself), the documentation in the shape of the tree, so
# that its links hold, and the examples.
PREFIX  ?= /usr/local
BINDIR  := $(DESTDIR)$(PREFIX)/bin
DOCDIR  := $(DESTDIR)$(PREFIX)/share/doc/txc
EXDIR   := $(DESTDIR)$(PREFIX)/share/txc/examples
INSTALL_PROGS := $(filter-out $(BIN)/txc-unittest,$(PROGS))
DOCS    := $(wildcard doc/*.md)
IMGS    := $(wildcard doc/img/*.svg)
EXAMPLES := $(wildcard examples/*.tx)

install: $(INSTALL_PROGS)
	install -d $(BINDIR) $(DOCDIR)/doc/img $(EXDIR)
	install -m 755 $(INSTALL_PROGS) $(BINDIR)
	install -m 644 README.md $(DOCDIR)
	install -m 644 $(DOCS) $(DOCDIR)/doc
	install -m 644 $(IMGS) $(DOCDIR)/doc/img
	install -m 644 $(EXAMPLES) $(EXDIR)

uninstall:
	rm -f $(addprefix $(BINDIR)/,$(notdir $(INSTALL_PROGS)))
	rm -f $(DOCDIR)/README.md $(addprefix $(DOCDIR)/,$(DOCS) $(IMGS)) $(addprefix $(EXDIR)/,$(notdir $(EXAMPLES)))
	rmdir --ignore-fail-on-non-empty $(DOCDIR)/doc/img $(DOCDIR)/doc $(DOCDIR) $(EXDIR) $(dir $(EXDIR))

test: all
	prove tests/

check: all
	prove tests/
	$(MAKE) SAN=1 all
	TXC_BIN=build-san/bin prove tests/

# make fuzz [FUZZ_PROGS='txc-parse txc-emu'] [FUZZ_TIME=S] [FUZZ_OUT=DIR]
# fuzzes each target of tests/fuzz/targets for FUZZ_TIME seconds, one after
# another (FUZZ_TIMEOUT: milliseconds of a run that count as a hang), and
# writes the final statistics to FUZZ_STATS (README.md, Tests).
FUZZ_PROGS   ?=
FUZZ_TIME    ?= 1200
FUZZ_TIMEOUT ?= 1000
FUZZ_OUT     ?= build-fuzz/out
FUZZ_STATS   ?= tests/fuzz/stats
FUZZ_BUILD   := txc txc-parse $(notdir $(PASSES)) txc-cuda txc-ptx txc-emu txc-layout

fuzz:
	$(MAKE) FUZZ=1 $(addprefix build-fuzz/bin/,$(FUZZ_BUILD))
	sh tests/fuzz/run.sh --bin build-fuzz/bin --out $(FUZZ_OUT) --stats $(FUZZ_STATS) --time $(FUZZ_TIME) \
		--timeout $(FUZZ_TIMEOUT) $(FUZZ_PROGS)

clean:
	rm -rf build build-san build-fuzz bin

.PHONY: all test check clean install uninstall fuzz
.DELETE_ON_ERROR:
