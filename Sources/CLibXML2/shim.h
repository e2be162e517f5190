#ifndef TODO_CLIBXML2_SHIM_H
#define TODO_CLIBXML2_SHIM_H
/* Debian's libxml2 is built with ICU, and encoding.h then includes the system's ICU headers,
   which clash with the ICU Foundation carries in any module that imports both. Nothing here
   uses ICU or looks inside an encoding handler (the only struct whose fields depend on it; it is
   only ever reached through pointers), so the ICU part of the headers is left out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/* libxml2 prints what it finds wrong to stderr unless told otherwise. A parse of a request body
   passes XML_PARSE_NOERROR | XML_PARSE_NOWARNING and reads the error back from its context; these
   handlers also quiet the reports that reach no context (an encoding conversion's). The generic
   handler is variadic, which Swift cannot write, hence C. */
static void todo_xml_ignore_generic(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static void todo_xml_ignore_structured(void *context, xmlErrorPtr error) {
    (void)context;
    (void)error;
}

/* The handlers are per thread in libxml2: the defaults for threads that first call it later,
   and this thread's own. Called before every parse (two stores), so that whichever thread runs a
   parse, nothing of it is printed. */
static inline void todo_xml_silence(void) {
    xmlThrDefSetGenericErrorFunc(NULL, todo_xml_ignore_generic);
    xmlThrDefSetStructuredErrorFunc(NULL, todo_xml_ignore_structured);
    xmlSetGenericErrorFunc(NULL, todo_xml_ignore_generic);
    xmlSetStructuredErrorFunc(NULL, todo_xml_ignore_structured);
}

/* No external entity is ever loaded: request bodies with a DTD are refused before parsing, and
   this loader refuses whatever might still ask (a file, or the network NONET forbids anyway).
   The loader is one for the whole process; only todo-serve's CalDAV parser uses libxml2. */
static xmlParserInputPtr todo_xml_no_external_entity(const char *url, const char *id, xmlParserCtxtPtr context) {
    (void)url;
    (void)id;
    (void)context;
    return NULL;
}

static inline void todo_xml_refuse_external_entities(void) {
    xmlSetExternalEntityLoader(todo_xml_no_external_entity);
}
#endif
