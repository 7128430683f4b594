import detector from './python.js';
import { testPythonFixtures } from '../../../test/support/python-tester.js';

testPythonFixtures('X-6', detector, import.meta.url);
